import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { GatewayMetrics } from "../metrics.js";

/** A running `/metrics` listener apart from the public port. */
export interface MetricsListener {
  /** `http://addr:port/metrics`. */
  readonly url: string;
  close(): Promise<void>;
}

/** Whether `addr` only accepts connections from this machine. */
export function isLoopback(addr: string): boolean {
  return addr === "localhost" || addr === "::1" || /^127\./.test(addr);
}

/** Serves the gateway's metrics on `GET /metrics` at `addr:port` (404 elsewhere, 405 for other methods). */
export function listenMetrics(metrics: GatewayMetrics, addr: string, port: number): Promise<MetricsListener> {
  const server = createServer((req, res) => {
    if ((req.url ?? "/").split("?")[0] !== "/metrics") {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("not found");
      return;
    }
    if (req.method !== "GET") {
      res.writeHead(405, { "Content-Type": "text/plain", Allow: "GET" }).end("method not allowed");
      return;
    }
    metrics.render().then(
      (text) => res.writeHead(200, { "Content-Type": metrics.registry.contentType }).end(text),
      () => res.writeHead(500, { "Content-Type": "text/plain" }).end("internal error"),
    );
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, addr, () => {
      const bound = (server.address() as AddressInfo).port;
      resolve({
        url: `http://${addr.includes(":") ? `[${addr}]` : addr}:${bound}/metrics`,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
