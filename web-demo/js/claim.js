// The claim page of an offer's link (api/claim_pages.py): claims it through the API. A walk-in's token is enough
// (claimWalkIn); a capacity offer is claimed by the customer who joined the line, signed in with a one-time code
// sent to their WhatsApp (requestLoginCode, verifyLoginCode, then claimWaitlistOffer with that session).

import {gql, resultError} from "/web-demo/js/gql.js";

const offer = document.getElementById("offer");
const said = document.getElementById("said");
const claim = document.getElementById("claim");
const form = document.getElementById("sign-in");
const {kind, unit, token, mutation} = offer.dataset;
const SESSION = "slothold.claim.session";
// The documents, as the page carries them (api/claim_pages.py): the same text a persisted query manifest lists.
const DOCUMENTS = JSON.parse(document.getElementById("documents").textContent);

function say(text, tone = "") {
  said.textContent = text;
  said.className = `message ${tone}`;
  said.hidden = !text;
}

async function claimIt(session) {
  const query = kind === "walk_in" ? DOCUMENTS.ClaimWalkIn : DOCUMENTS.ClaimWaitlistOffer;
  const r = (await gql(query, {u: unit, t: token}, session))[mutation];
  if (r.__typename === "WalkIn" || r.__typename === "Booking") {
    claim.hidden = true;
    if (form) form.hidden = true;
    say(kind === "walk_in" ? "Pronto! Avisamos a equipe: pode vir." : "Pronto, a vaga é sua: finalize a reserva "
      + "e pague o PIX dentro do prazo.", "ok");
    return;
  }
  if (r.code === "offer_of_another_user") sessionStorage.removeItem(SESSION);
  say(resultError(r), "error");
}

async function signIn(event) {
  event.preventDefault();
  const phone = form.elements.phone.value.trim();
  const code = form.elements.code;
  const button = form.querySelector("button");
  try {
    if (code.hidden) {
      const r = (await gql(DOCUMENTS.RequestLoginCode, {u: unit, p: phone})).requestLoginCode;
      if (r.__typename !== "LoginCodeSent") return say(resultError(r), "error");
      code.hidden = false;
      code.required = true;
      button.textContent = "Entrar e ficar com a vaga";
      return say("Enviamos um código para o seu WhatsApp.");
    }
    const s = (await gql(DOCUMENTS.VerifyLoginCode, {u: unit, p: phone, c: code.value.trim()})).verifyLoginCode;
    if (s.__typename !== "CustomerSession") return say(resultError(s), "error");
    sessionStorage.setItem(SESSION, s.token);
    await claimIt(s.token);
  } catch (e) {
    say(e.message, "error");
  }
}

claim.addEventListener("click", async () => {
  claim.disabled = true;
  try {
    const session = sessionStorage.getItem(SESSION);
    if (kind === "capacity" && !session) {
      claim.hidden = true;
      form.hidden = false;
      return;
    }
    await claimIt(session);
  } catch (e) {
    say(e.message, "error");
  } finally {
    claim.disabled = false;
  }
});
if (form) form.addEventListener("submit", signIn);
