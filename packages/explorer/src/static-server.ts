import { existsSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** The built browser app (`vite build` output), beside this package's `dist/`. */
export const DEFAULT_WEB_ROOT = fileURLToPath(new URL("../dist-web/", import.meta.url));

/** Options of `startExplorerServer`. */
export interface ExplorerServerOptions {
  /** Base URL of the API gateway the page reads, e.g. `http://127.0.0.1:4000`. */
  readonly apiUrl: string;
  /** WebSocket URL for live heads; defaults to the gateway's `/ws` on the same host. */
  readonly wsUrl?: string;
  /** Port to listen on; 0 picks a free one. */
  readonly port: number;
  /** Listen address (default 127.0.0.1). */
  readonly host?: string;
  /**
   * API key the pages send to the gateway (`X-API-Key`, and `apiKey` on the WebSocket URL). It is
   * public to anyone who can load the pages: give it only a key meant for the explorer.
   */
  readonly apiKey?: string;
  /** Directory of the built app (default `dist-web/` of this package). */
  readonly root?: string;
}

/** A running explorer server. */
export interface ExplorerServer {
  /** `http://host:port` it serves on. */
  readonly url: string;
  close(): Promise<void>;
}

/** The explorer bundle has not been built, so there is nothing to serve. */
export class ExplorerNotBuiltError extends Error {
  constructor(readonly root: string) {
    super(`explorer app not built: ${root} has no index.html (run "npm run build")`);
    this.name = "ExplorerNotBuiltError";
  }
}

/** `--api` is not an http(s) URL. */
export class InvalidApiUrlError extends Error {
  constructor(readonly value: string) {
    super(`--api: expected an http:// or https:// URL, got "${value}"`);
    this.name = "InvalidApiUrlError";
  }
}

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".woff": "font/woff",
  ".txt": "text/plain; charset=utf-8",
};

/** Normalises and checks the gateway URL; returns it without a trailing slash. */
export function parseApiUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidApiUrlError(value);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new InvalidApiUrlError(value);
  return url.toString().replace(/\/+$/, "");
}

/** The default WebSocket URL of a gateway: same host, `ws(s)://`, path `/ws`. */
export function defaultWsUrl(apiUrl: string): string {
  return `${apiUrl.replace(/^http/, "ws")}/ws`;
}

/**
 * The page may talk only to itself and the gateway: scripts, styles and fonts come from this server,
 * so the browser refuses any other origin.
 */
function contentSecurityPolicy(apiUrl: string, wsUrl: string): string {
  const api = new URL(apiUrl).origin;
  const ws = new URL(wsUrl).origin;
  return [
    "default-src 'self'",
    `connect-src 'self' ${api} ${ws}`,
    "img-src 'self' data:",
    "style-src 'self' 'unsafe-inline'",
    "script-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/**
 * Serves the explorer single-page app: static files from the built bundle, `/config.json` with the
 * gateway URL chosen at start, and `index.html` for every other route (client-side routing).
 */
export async function startExplorerServer(options: ExplorerServerOptions): Promise<ExplorerServer> {
  const root = options.root ?? DEFAULT_WEB_ROOT;
  if (!existsSync(join(root, "index.html"))) throw new ExplorerNotBuiltError(root);
  const apiUrl = parseApiUrl(options.apiUrl);
  const wsUrl = options.wsUrl ?? defaultWsUrl(apiUrl);
  const config = JSON.stringify({ apiUrl, wsUrl, ...(options.apiKey ? { apiKey: options.apiKey } : {}) });
  const csp = contentSecurityPolicy(apiUrl, wsUrl);
  const indexHtml = await readFile(join(root, "index.html"));

  const send = (res: ServerResponse, status: number, type: string, body: Buffer | string, cache: string) => {
    res.writeHead(status, {
      "content-type": type,
      "content-length": Buffer.byteLength(body),
      "cache-control": cache,
      "content-security-policy": csp,
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
    });
    res.end(body);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain; charset=utf-8" });
      res.end("method not allowed\n");
      return;
    }
    let pathname: string;
    try {
      pathname = decodeURIComponent(new URL(req.url ?? "/", "http://localhost").pathname);
    } catch {
      send(res, 400, "text/plain; charset=utf-8", "bad request\n", "no-store");
      return;
    }
    if (pathname === "/config.json") {
      send(res, 200, CONTENT_TYPES[".json"]!, config, "no-store");
      return;
    }
    const ext = extname(pathname);
    if (ext !== "") {
      const file = normalize(join(root, pathname));
      const inside = file.startsWith(root.endsWith(sep) ? root : root + sep);
      const info = inside ? await stat(file).catch(() => null) : null;
      if (!info?.isFile()) {
        send(res, 404, "text/plain; charset=utf-8", "not found\n", "no-store");
        return;
      }
      // Vite fingerprints everything under assets/, so those never change.
      const cache = pathname.startsWith("/assets/") ? "public, max-age=31536000, immutable" : "no-cache";
      send(res, 200, CONTENT_TYPES[ext] ?? "application/octet-stream", await readFile(file), cache);
      return;
    }
    send(res, 200, CONTENT_TYPES[".html"]!, indexHtml, "no-cache");
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, 500, "text/plain; charset=utf-8", "internal error\n", "no-store");
      else res.destroy();
    });
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
