import type { ServerResponse } from "node:http";

/** Writes a JSON body with its length and any extra headers. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  // One flat name/value list, no object spread: this runs once per answered call.
  const list: (string | number)[] = [
    "Content-Type",
    "application/json",
    "Content-Length",
    Buffer.byteLength(body),
  ];
  for (const name in headers)
    if (name !== "Content-Type" && name !== "Content-Length") list.push(name, headers[name]!);
  res.writeHead(status, list);
  res.end(body);
}

/** Writes a short plain-text body (transport-level refusals: 404, 405, 415). */
export function sendPlain(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { ...headers, "Content-Type": "text/plain" });
  res.end(message);
}
