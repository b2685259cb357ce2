import { ExplorerNotBuiltError, InvalidApiUrlError, startExplorerServer } from "@strata/explorer";
import { type FlagSpec, formatFlags, intFlag, parseFlags } from "../flags.js";
import { untilSignal } from "../signals.js";
import { UsageError } from "../usage-error.js";

/** Flags of `strata explorer`. */
export const EXPLORER_FLAGS: Record<string, FlagSpec> = {
  api: {
    type: "string",
    description: "API gateway URL the pages read from (required), e.g. http://127.0.0.1:4000",
  },
  ws: { type: "string", description: "WebSocket URL for live blocks (default: the gateway's /ws)" },
  "api-key": {
    type: "string",
    description: "API key the pages send to the gateway (visible to every visitor; default none)",
  },
  port: { type: "string", description: "HTTP port (default 15000)" },
  addr: { type: "string", description: "listen address (default 127.0.0.1)" },
  help: { type: "boolean", description: "print this help" },
};

/** Help text of `strata explorer`. */
export const EXPLORER_HELP = `Usage: strata explorer --api URL [flags]

Serves the block explorer web app. The pages read everything from the API gateway at --api
(REST /v1, JSON-RPC /rpc, WebSocket /ws), never from a node directly.

Flags (each also read from STRATA_<FLAG>, e.g. STRATA_API):
${formatFlags(EXPLORER_FLAGS)}`;

/** `strata explorer`: serves the explorer until SIGINT/SIGTERM, printing `ready <url>` once it serves. */
export async function runExplorer(argv: readonly string[], out: (line: string) => void): Promise<number> {
  const values = parseFlags(argv, EXPLORER_FLAGS, { command: "explorer" });
  if (values.help) {
    out(EXPLORER_HELP);
    return 0;
  }
  if (typeof values.api !== "string" || values.api === "") {
    throw new UsageError("--api is required: the API gateway URL, e.g. --api http://127.0.0.1:4000");
  }
  const port = intFlag(values, "port", 15000, 0, 65535);
  let server: Awaited<ReturnType<typeof startExplorerServer>>;
  try {
    server = await startExplorerServer({
      apiUrl: values.api,
      port,
      ...(typeof values.ws === "string" ? { wsUrl: values.ws } : {}),
      ...(typeof values.addr === "string" ? { host: values.addr } : {}),
      ...(typeof values["api-key"] === "string" ? { apiKey: values["api-key"] } : {}),
    });
  } catch (error) {
    if (error instanceof InvalidApiUrlError || error instanceof ExplorerNotBuiltError) {
      throw new UsageError(error.message);
    }
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
      throw new UsageError(`--port: port ${port} is already in use`);
    }
    throw error;
  }
  out(`Strata explorer · reading from ${values.api}`);
  out(`ready ${server.url}`);
  await untilSignal();
  await server.close();
  return 0;
}
