import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import type { ApiKeyStore } from "../keys/key-store.js";
import { AdminApi } from "./admin-api.js";

const TOKEN = "0123456789abcdef0123456789abcdef";

/** A GET of the key list from `client` with `token`, answered into a recorded status. */
async function attempt(admin: AdminApi, client: string, token: string): Promise<number> {
  let status = 0;
  const req = { method: "GET", headers: { authorization: `Bearer ${token}` }, client };
  const res = {
    writeHead(code: number) {
      status = code;
    },
    end() {},
  };
  await admin.handle(req as unknown as IncomingMessage, res as unknown as ServerResponse, "/admin/keys");
  return status;
}

describe("AdminApi failed attempts", () => {
  it("remembers at most its bound of failing client addresses when more fail", async () => {
    // Failed attempts never reach the key store.
    const admin = new AdminApi(
      undefined as unknown as ApiKeyStore,
      TOKEN,
      (req) => (req as unknown as { client: string }).client,
    );
    const { bound } = admin.failingClients;
    expect(bound).toBe(10_000);
    for (let i = 0; i < bound + 500; i++) {
      expect(await attempt(admin, `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, "wrong")).toBe(401);
    }
    expect(admin.failingClients.size()).toBe(bound);
    // The newest failing address is still counted: nine more failures, then 429.
    const last = `10.0.${((bound + 499) >> 8) & 255}.${(bound + 499) & 255}`;
    for (let i = 0; i < 9; i++) expect(await attempt(admin, last, "wrong")).toBe(401);
    expect(await attempt(admin, last, "wrong")).toBe(429);
    expect(admin.failingClients.size()).toBe(bound);
  });
});
