import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readJsonBody } from "../web/src/json-body.js";

/**
 * A server answering 200 with a body that is cut short: `/truncated` ends it, `/stalled` keeps the
 * connection open after half of it (as an answer still on its way when the page moves on).
 */
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.write('{"totalStaked":');
    if (req.url === "/truncated") res.end();
    if (req.url === "/whole") res.end('"1"}');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("reading an API answer's body", () => {
  it("gives the parsed body of a whole answer", async () => {
    expect(await readJsonBody(await fetch(`${base}/whole`))).toEqual({ totalStaked: "1" });
  });

  it("gives nothing, not null, for a body that is not JSON", async () => {
    expect(await readJsonBody(await fetch(`${base}/truncated`))).toBeUndefined();
  });

  it("throws the abort when the read is called off part way, instead of answering with an empty body", async () => {
    const ctrl = new AbortController();
    const res = await fetch(`${base}/stalled`, { signal: ctrl.signal });
    const reading = readJsonBody(res, ctrl.signal);
    ctrl.abort();
    await expect(reading).rejects.toThrow(/abort/i);
  });
});
