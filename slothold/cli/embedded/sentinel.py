"""A Redis primary, its replicas and three sentinels on this machine (the system's `redis-server`, Redis ≥ 6, run
with `--sentinel` for the sentinels), for tests and benchmarks of a failover: kill the primary, a replica is
promoted, and every Slothold client finds it through REDIS_SENTINELS (slothold/redis_conn.py)."""

from __future__ import annotations

import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

from slothold.cli.embedded.process import EmbeddedServerError, _tail, free_port

MASTER = "slothold"
DOWN_AFTER_MS = 1000
"""How long the sentinels wait for a silent primary before they agree it is down (then elect and promote)."""


NODE_ARGS = ["--save", "", "--appendonly", "no", "--repl-diskless-sync-delay", "0"]
"""Memory only (the failover is what is tested); a replica's first sync starts at once (Redis 7 waits 5 s)."""


def system_redis() -> str | None:
    """The machine's redis-server (Debian's redis-server package), which can run as a sentinel; None if absent."""
    return shutil.which("redis-server")


@dataclass
class _Node:
    name: str
    port: int
    directory: Path
    popen: subprocess.Popen[bytes] | None = None

    @property
    def log(self) -> Path:
        return self.directory / "redis.log"

    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None


@dataclass
class RedisSentinelGroup:
    """`replicas` replicas of a primary, watched by `sentinels` sentinels (quorum: a majority of them)."""

    base: Path
    replicas: int = 1
    sentinels: int = 3
    master: str = MASTER
    nodes: list[_Node] = field(default_factory=list)
    watchers: list[_Node] = field(default_factory=list)

    @property
    def sentinel_spec(self) -> str:
        """REDIS_SENTINELS for this group."""
        return ",".join(f"127.0.0.1:{w.port}" for w in self.watchers)

    def start(self) -> RedisSentinelGroup:
        exe = system_redis()
        if exe is None:
            raise EmbeddedServerError("redis-server is not installed (apt-get install redis-server)")
        self.nodes = [_Node(f"redis{i}", free_port(), self.base / f"redis{i}") for i in range(1 + self.replicas)]
        primary = self.nodes[0]
        for node in self.nodes:
            extra = [] if node is primary else ["--replicaof", "127.0.0.1", str(primary.port)]
            self._run(exe, node, [*NODE_ARGS, *extra])
        for node in self.nodes:
            _wait_ping(node)
        _wait(lambda: all(_link_up(n.port) for n in self.nodes[1:]), 30, "the replicas' first sync")
        quorum = self.sentinels // 2 + 1
        self.watchers = [_Node(f"sentinel{i}", free_port(), self.base / f"sentinel{i}") for i in range(self.sentinels)]
        for w in self.watchers:
            w.directory.mkdir(parents=True, exist_ok=True)
            conf = w.directory / "sentinel.conf"
            conf.write_text(
                f"port {w.port}\nbind 127.0.0.1\ndir {w.directory}\nlogfile {w.log}\n"
                f"sentinel monitor {self.master} 127.0.0.1 {primary.port} {quorum}\n"
                f"sentinel down-after-milliseconds {self.master} {DOWN_AFTER_MS}\n"
                f"sentinel failover-timeout {self.master} 10000\n"
                f"sentinel parallel-syncs {self.master} 1\n")
            w.popen = subprocess.Popen([exe, str(conf), "--sentinel"], cwd=w.directory, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        for w in self.watchers:
            _wait_ping(w)
        # every sentinel knows the replicas and the other sentinels before anyone relies on a failover
        _wait(lambda: all(self._sentinel_view(w) == (self.replicas, self.sentinels - 1) for w in self.watchers),
              30, "the sentinels to discover each other and the replicas")
        return self

    @staticmethod
    def _run(exe: str, node: _Node, args: list[str]) -> None:
        node.directory.mkdir(parents=True, exist_ok=True)
        node.popen = subprocess.Popen(
            [exe, "--port", str(node.port), "--bind", "127.0.0.1", "--dir", str(node.directory),
             "--logfile", str(node.log), "--daemonize", "no", *args],
            cwd=node.directory, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)

    def _sentinel_view(self, w: _Node) -> tuple[int, int]:
        client = redis.Redis(port=w.port, socket_timeout=1, decode_responses=True)
        try:
            info: Any = client.sentinel_master(self.master)  # type: ignore[no-untyped-call]
            return int(info["num-slaves"]), int(info["num-other-sentinels"])
        except (redis.RedisError, OSError, KeyError):
            return (-1, -1)
        finally:
            client.close()

    def master_port(self) -> int | None:
        """The primary's port as the first sentinel that answers sees it."""
        for w in self.watchers:
            client = redis.Redis(port=w.port, socket_timeout=1)
            try:
                addr: Any = client.sentinel_get_master_addr_by_name(self.master)  # type: ignore[no-untyped-call]
                if addr:
                    return int(addr[1])
            except (redis.RedisError, OSError):
                continue
            finally:
                client.close()
        return None

    def node(self, port: int) -> _Node:
        return next(n for n in self.nodes if n.port == port)

    def kill_master(self) -> int:
        """SIGKILL the current primary (no goodbye to anyone); return its port."""
        port = self.master_port()
        if port is None:
            raise EmbeddedServerError("no sentinel names a primary")
        victim = self.node(port)
        assert victim.popen is not None
        victim.popen.send_signal(signal.SIGKILL)
        victim.popen.wait(5)
        return port

    def wait_failover(self, old_port: int, timeout: float = 30) -> int:
        """Wait until the sentinels name another primary and it answers as one; return its port."""
        def promoted() -> bool:
            port = self.master_port()
            return port is not None and port != old_port and _role(port)[0] == "master"
        _wait(promoted, timeout, "a replica to be promoted")
        port = self.master_port()
        assert port is not None
        return port

    def restart(self, port: int) -> None:
        """Start a killed node again on its port (the sentinels make it a replica of the new primary)."""
        exe = system_redis()
        assert exe is not None
        node = self.node(port)
        self._run(exe, node, NODE_ARGS)
        _wait_ping(node)

    def stop(self) -> None:
        for n in [*self.watchers, *self.nodes]:
            if n.alive():
                assert n.popen is not None
                n.popen.terminate()
                try:
                    n.popen.wait(10)
                except subprocess.TimeoutExpired:
                    n.popen.kill()
                    n.popen.wait(5)

    def logs(self) -> str:
        return "\n".join(f"--- {n.name}\n{_tail(n.log, 15)}" for n in [*self.nodes, *self.watchers])


def _link_up(port: int) -> bool:
    """Whether the replica on `port` finished its sync with its primary (master_link_status:up)."""
    client = redis.Redis(port=port, socket_timeout=1, decode_responses=True)
    try:
        info: Any = client.info("replication")
        return bool(info.get("master_link_status") == "up")
    except (redis.RedisError, OSError):
        return False
    finally:
        client.close()


def _role(port: int) -> tuple[str, int]:
    """(role, connected replicas) of the Redis on `port`; ("down", -1) when it does not answer."""
    client = redis.Redis(port=port, socket_timeout=1)
    try:
        info: Any = client.info("replication")
        return str(info["role"]), int(info.get("connected_slaves", 0))
    except (redis.RedisError, OSError):
        return ("down", -1)
    finally:
        client.close()


def _wait_ping(node: _Node, timeout: float = 20) -> None:
    def answers() -> bool:
        if not node.alive():
            raise EmbeddedServerError(f"{node.name} exited; its log:\n{_tail(node.log)}")
        client = redis.Redis(port=node.port, socket_timeout=0.5)
        try:
            return bool(client.ping())
        except (redis.RedisError, OSError):
            return False
        finally:
            client.close()
    _wait(answers, timeout, f"{node.name} to answer PING")


def _wait(condition: object, timeout: float, what: str) -> None:
    assert callable(condition)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise EmbeddedServerError(f"timed out after {timeout:.0f} s waiting for {what}")
