import { describe, expect, it } from "vitest";
import { GOING_AWAY, type LiveSocket, SocketLiveness, UNSUPPORTED_DATA } from "./socket-liveness.js";

/** A socket that records what liveness did to it. */
function recordingSocket(): LiveSocket & { readonly actions: string[] } {
  const actions: string[] = [];
  return {
    actions,
    ping: () => actions.push("ping"),
    terminate: () => actions.push("terminate"),
    close: (code, reason) => actions.push(`close ${code} ${reason}`),
  };
}

describe("SocketLiveness", () => {
  it("pings while pongs come back, and terminates once a ping goes unanswered", () => {
    const socket = recordingSocket();
    const liveness = new SocketLiveness();
    const now = performance.now();
    liveness.pingRound(socket, now, true, 1_000);
    liveness.pong();
    liveness.pingRound(socket, now, true, 1_000);
    liveness.pingRound(socket, now, true, 1_000);
    expect(socket.actions).toEqual(["ping", "ping", "terminate"]);
  });

  it("closes a socket idle past the timeout unless it holds subscriptions", () => {
    const socket = recordingSocket();
    const liveness = new SocketLiveness();
    const later = performance.now() + 5_000;
    liveness.pingRound(socket, later, true, 1_000);
    liveness.pong();
    liveness.pingRound(socket, later, false, 1_000);
    expect(socket.actions).toEqual(["ping", `close ${GOING_AWAY} idle timeout`]);
  });

  it("reads text frames, joins fragments, and closes on a binary frame", () => {
    const socket = recordingSocket();
    const liveness = new SocketLiveness();
    expect(liveness.message(socket, Buffer.from("{}"), false)).toBe("{}");
    expect(liveness.message(socket, [Buffer.from("[1,"), Buffer.from("2]")], false)).toBe("[1,2]");
    expect(liveness.message(socket, Buffer.from([1]), true)).toBeUndefined();
    expect(socket.actions).toEqual([`close ${UNSUPPORTED_DATA} binary frames are not supported`]);
  });

  it("counts a message as activity", () => {
    const socket = recordingSocket();
    const liveness = new SocketLiveness();
    const start = performance.now();
    liveness.message(socket, Buffer.from("{}"), false);
    liveness.pingRound(socket, start + 999, false, 1_000);
    expect(socket.actions).toEqual(["ping"]);
  });
});
