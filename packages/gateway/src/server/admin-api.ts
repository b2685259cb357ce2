import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { digestsEqual, hashApiKey } from "../keys/api-key.js";
import type { ApiKeyStore } from "../keys/key-store.js";
import { TIERS } from "../keys/tiers.js";
import { sendJson } from "./respond.js";

/** Admin requests are small JSON documents. */
const MAX_ADMIN_BODY = 16 * 1024;
/** Failed admin attempts one client address may make per window before it is refused (429). */
const MAX_FAILURES = 10;
const FAILURE_WINDOW_MS = 60_000;
/** Bound on the addresses whose failures are remembered (oldest forgotten first). */
const MAX_TRACKED = 10_000;

const CreateKeyBody = z.object({ tier: z.enum(TIERS), label: z.string().max(200).optional() }).strict();

/**
 * The admin API under `/admin/keys`, behind `Authorization: Bearer <admin token>` (compared in
 * constant time): `GET` lists keys, `POST {tier, label?}` creates one (201, the key shown once),
 * `DELETE /admin/keys/ID` revokes one. Without a configured token every admin path is 404. A client
 * address with 10 failed attempts within a minute is refused (429) until that minute is over, the
 * right token included, so the token cannot be guessed at speed.
 */
export class AdminApi {
  private readonly tokenDigest: Buffer | undefined;
  /** Per client address: failed attempts in the current window and when it started. */
  private readonly failures = new Map<string, { count: number; since: number }>();
  /** Client addresses whose failed attempts are remembered, for the metrics. */
  readonly failingClients = { size: () => this.failures.size, bound: MAX_TRACKED };

  constructor(
    private readonly keys: ApiKeyStore,
    token: string | undefined,
    private readonly clientOf: (req: IncomingMessage) => string = (req) =>
      req.socket.remoteAddress ?? "unknown",
    private readonly clock: () => number = Date.now,
  ) {
    this.tokenDigest = token === undefined || token === "" ? undefined : hashApiKey(token);
  }

  /** True for paths this API owns. */
  owns(path: string): boolean {
    return path === "/admin/keys" || path.startsWith("/admin/keys/");
  }

  /** Answers one admin request. */
  async handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (this.tokenDigest === undefined) return fail(res, 404, "not found");
    const client = this.clientOf(req);
    const now = this.clock();
    let failed = this.failures.get(client);
    if (failed !== undefined && now - failed.since >= FAILURE_WINDOW_MS) {
      this.failures.delete(client);
      failed = undefined;
    }
    if (failed !== undefined && failed.count >= MAX_FAILURES) {
      const retryAfter = Math.ceil((failed.since + FAILURE_WINDOW_MS - now) / 1000);
      return fail(res, 429, "too many failed admin attempts", { "Retry-After": String(retryAfter) });
    }
    const auth = req.headers.authorization ?? "";
    const token = /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim();
    if (token === undefined || !digestsEqual(hashApiKey(token), this.tokenDigest)) {
      if (failed === undefined) {
        if (this.failures.size >= MAX_TRACKED) this.failures.delete(this.failures.keys().next().value!);
        this.failures.set(client, { count: 1, since: now });
      } else {
        failed.count++;
      }
      return fail(res, 401, "invalid admin token", { "WWW-Authenticate": "Bearer" });
    }
    let id: string | undefined;
    try {
      id = path.startsWith("/admin/keys/")
        ? decodeURIComponent(path.slice("/admin/keys/".length))
        : undefined;
    } catch {
      return fail(res, 400, "bad percent-encoding in the key id");
    }
    if (id === undefined && req.method === "GET") {
      const keys = await this.keys.list();
      return sendJson(res, 200, JSON.stringify({ keys }));
    }
    if (id === undefined && req.method === "POST") {
      const body = await readJson(req);
      const parsed = CreateKeyBody.safeParse(body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return fail(
          res,
          400,
          `invalid body: ${issue ? `${issue.path.join(".") || "body"}: ${issue.message}` : "expected {tier, label?}"}`,
        );
      }
      const created = await this.keys.create(parsed.data.tier, parsed.data.label ?? "");
      return sendJson(res, 201, JSON.stringify(created));
    }
    if (id !== undefined && req.method === "DELETE") {
      if (!(await this.keys.revoke(id))) return fail(res, 404, `no key with id ${id}`);
      return sendJson(res, 200, JSON.stringify({ id, revoked: true }));
    }
    res.setHeader("Allow", id === undefined ? "GET, POST" : "DELETE");
    return fail(res, 405, "method not allowed");
  }
}

function fail(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, JSON.stringify({ error: { message } }), headers);
}

/** Reads a small JSON body; undefined when it is too large or not JSON. */
function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_ADMIN_BODY) chunks.push(chunk);
    });
    req.on("end", () => {
      if (size > MAX_ADMIN_BODY) return resolve(undefined);
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      } catch {
        resolve(undefined);
      }
    });
    req.on("error", () => resolve(undefined));
  });
}
