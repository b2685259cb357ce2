/**
 * The `GET /metrics` listener the node, the gateway and the indexer serve Prometheus text on, apart
 * from their public ports. Node.js only: a subpath of its own (`@strata/protocol/metrics-server`), so
 * the browser bundle that imports the package's root never sees `node:http`.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** What `GET /metrics` serves: Prometheus text and its content type. */
export interface MetricsEndpoint {
  render(): Promise<string>;
  readonly contentType: string;
}

/** A running metrics listener apart from the public port. */
export interface MetricsServer {
  /** `http://addr:port/metrics`. */
  readonly url: string;
  close(): Promise<void>;
}

/** Whether `addr` only accepts connections from this machine. */
export function isLoopback(addr: string): boolean {
  return addr === "localhost" || addr === "::1" || /^127\./.test(addr);
}

/** Serves `endpoint` on `GET /metrics` at `addr:port` (404 elsewhere, 405 for other methods). */
export function serveMetricsEndpoint(
  endpoint: MetricsEndpoint,
  addr: string,
  port: number,
): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    if ((req.url ?? "/").split("?")[0] !== "/metrics") {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("not found");
      return;
    }
    if (req.method !== "GET") {
      res.writeHead(405, { "Content-Type": "text/plain", Allow: "GET" }).end("method not allowed");
      return;
    }
    endpoint.render().then(
      (text) => res.writeHead(200, { "Content-Type": endpoint.contentType }).end(text),
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
