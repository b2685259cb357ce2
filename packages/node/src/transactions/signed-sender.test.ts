import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SignedSender } from "./signed-sender.js";

const KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";

describe("SignedSender", () => {
  let server: Server;
  let url: string;
  let received = 0;

  beforeAll(async () => {
    // A node that takes requests and never answers them (one still starting its execution workers).
    server = createServer(() => {
      received++;
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("abort() cuts the request in flight and every later one, without waiting for an answer", async () => {
    let stopped = false;
    const sender = new SignedSender(url, KEY, () => stopped);
    const round = sender.sendAll([{ to: sender.address, data: "0x", gas: 21_000n }]);
    await expect.poll(() => received).toBe(1);
    stopped = true;
    sender.abort();
    await expect(round).rejects.toThrow(/abort/i);
    await expect(sender.publicClient.getBlockNumber()).rejects.toThrow(/abort/i);
    expect(received).toBe(1);
  });
});
