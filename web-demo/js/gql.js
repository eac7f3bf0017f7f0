// GraphQL over HTTP (fetch) and subscriptions over graphql-transport-ws with the vendored graphql-ws client
// (web-demo/vendor/graphql-ws.umd.js, loaded by index.html as the global `graphqlWs`). Its own sentences (the
// server unreachable, an answer not understood) are in the screen's language (i18n.js).

import {register, t} from "./i18n.js";

register({
  "pt-BR": {
    "gql.offline": "Não foi possível falar com o servidor agora. Verifique a conexão e tente de novo.",
    "gql.notGraphql": "O servidor respondeu {status} sem uma resposta GraphQL. Tente de novo.",
    "gql.refused": "O pedido foi recusado.", "gql.wrong": "Algo deu errado.", "gql.noAnswer": "O servidor não respondeu.",
    "gql.feedStopped": "O canal ao vivo parou",
  },
  en: {
    "gql.offline": "The server cannot be reached right now. Check your connection and try again.",
    "gql.notGraphql": "The server answered {status} without a GraphQL response. Try again.",
    "gql.refused": "The request was refused.", "gql.wrong": "Something went wrong.", "gql.noAnswer": "No answer from the server.",
    "gql.feedStopped": "The live feed stopped",
  },
});

export class ApiError extends Error {
  constructor(message, code = null) {
    super(message);
    this.code = code;
  }
}

/** One GraphQL request; resolves to `data`, or throws an ApiError whose message is a sentence. */
export async function gql(query, variables = {}, token = null) {
  const headers = {"content-type": "application/json", accept: "application/graphql-response+json, application/json"};
  if (token) headers.authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch("/graphql", {method: "POST", headers, body: JSON.stringify({query, variables})});
  } catch {
    throw new ApiError(t("gql.offline"), "offline");
  }
  let body;
  try {
    body = await response.json();
  } catch {
    throw new ApiError(t("gql.notGraphql", {status: response.status}));
  }
  if (body.errors && body.errors.length) {
    const first = body.errors[0];
    const code = first.extensions && first.extensions.code;
    throw new ApiError(sentence(first.message || t("gql.refused")), code);
  }
  return body.data;
}

/** Make sure a message reads as a sentence: capital first letter, final full stop. */
export function sentence(text) {
  const s = String(text || "").trim();
  if (!s) return t("gql.wrong");
  const first = s[0].toUpperCase() + s.slice(1);
  return /[.!?…]$/.test(first) ? first : first + ".";
}

/** The message of a typed error result (a union member implementing Error), as a sentence. */
export function resultError(result) {
  if (!result) return t("gql.noAnswer");
  return sentence(result.message || result.code || t("gql.refused"));
}

/**
 * A live connection: graphql-ws with endless retries. `onStatus("online" | "offline" | "refused", detail)` tells
 * the page when to show its offline banner; `onReconnect()` runs after a connection that follows a lost one.
 */
export function liveClient(token, {onStatus = () => {}, onReconnect = () => {}} = {}) {
  let wasOpen = false;
  let lost = false;
  let disposed = false;  // closing it on purpose (leaving the page) is no lost connection (issue 20, bug 1)
  const client = window.graphqlWs.createClient({
    url: `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/graphql`,
    connectionParams: () => (token ? {authorization: `Bearer ${token}`} : {}),
    lazy: false,
    keepAlive: 4000,
    retryAttempts: Infinity,
    shouldRetry: (event) => !(event && (event.code === 4403 || event.code === 4401)),
    retryWait: (retries) => new Promise((resolve) => setTimeout(resolve, Math.min(3000, 250 * 2 ** retries))),
    on: {
      connected: () => {
        onStatus("online");
        if (lost) onReconnect();
        wasOpen = true;
        lost = false;
      },
      closed: (event) => {
        if (disposed) return;
        if (event && (event.code === 4403 || event.code === 4401)) {
          onStatus("refused", sentence(event.reason || "The token was refused"));
          return;
        }
        if (wasOpen) lost = true;
        onStatus("offline");
      },
      error: () => { if (!disposed) onStatus("offline"); },
    },
  });
  const dispose = client.dispose.bind(client);
  client.dispose = () => {
    disposed = true;
    return dispose();
  };
  return client;
}

/**
 * Follow one subscription: events reach `onEvent` once each, in order of `seq`. The payload's `since` is moved to
 * the last seq seen, so that graphql-ws' own re-subscription after a reconnect resumes where it left off.
 * Returns a function that stops it.
 */
export function follow(client, query, variables, onEvent, onError = () => {}) {
  const payload = {query, variables: {...variables, since: variables.since ?? null}};
  let stop = () => {};
  let stopped = false;
  let delay = 1000;  // after an error, try again later and later (a refusal will not heal by itself)
  const start = () => {
    stop = client.subscribe(payload, {
      next(message) {
        if (message.errors && message.errors.length) {
          onError(sentence(message.errors[0].message));
          return;
        }
        const event = message.data && Object.values(message.data)[0];
        if (!event) return;
        const since = payload.variables.since;
        if (event.seq != null && since != null && event.seq <= since) return;  // already seen
        if (event.seq != null) payload.variables.since = event.seq;
        delay = 1000;
        onEvent(event);
      },
      error(error) {
        const text = Array.isArray(error) ? error.map((e) => e.message).join("; ") : (error && error.message);
        onError(sentence(text || t("gql.feedStopped")));
        // e.g. slow_subscriber: subscribe again from the last seq seen.
        if (!stopped) setTimeout(() => { if (!stopped) start(); }, delay);
        delay = Math.min(30000, delay * 2);
      },
      complete() {
        // The server ended it (e.g. it shut down with the socket): follow on from the last seq seen.
        if (!stopped) setTimeout(() => { if (!stopped) start(); }, 300);
      },
    });
  };
  start();
  return () => {
    stopped = true;
    stop();
  };
}
