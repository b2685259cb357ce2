import { type MethodResult, type NodeMethodName, RpcError, type WireParams } from "@strata/protocol";
import WebSocket from "ws";
import { UnavailableResourceError } from "../errors/domain-errors.js";

/** A JSON-RPC response object. */
interface RpcResponse {
  readonly id?: number;
  readonly result?: unknown;
  readonly error?: { code: number; message: string; data?: unknown };
}

/** Raised when the source node cannot be reached or answers something that is not JSON-RPC. */
export class SourceUnavailableError extends UnavailableResourceError {}

/** The JSON-RPC client of the node a follower syncs from: HTTP for requests, WebSocket for new heads. */
export class SourceClient {
  constructor(
    readonly rpcUrl: string,
    readonly wsUrl: string,
    private readonly timeoutMs = 30_000,
  ) {}

  /** Calls one method; a JSON-RPC error of the source is rethrown with its code, message and data. */
  async call<M extends NodeMethodName>(method: M, params: WireParams<M>): Promise<MethodResult<M>> {
    const [response] = await this.post([{ jsonrpc: "2.0", id: 1, method, params }]);
    if (response?.error) {
      const { code, message, data } = response.error;
      throw new RpcError(code, message, data === undefined ? {} : { data });
    }
    return response?.result as MethodResult<M>;
  }

  /** The source's head block number. */
  async blockNumber(): Promise<bigint> {
    return BigInt(await this.call("eth_blockNumber", []));
  }

  /** The RLP of blocks `from..to` (inclusive), in one batch request; a missing block ends the list. */
  async rawBlocks(from: bigint, to: bigint): Promise<string[]> {
    const requests = [];
    for (let n = from; n <= to; n++) {
      requests.push({
        jsonrpc: "2.0",
        id: requests.length,
        method: "debug_getRawBlock",
        params: [`0x${n.toString(16)}`],
      });
    }
    const responses = await this.post(requests);
    const byId = new Map(responses.map((r) => [r.id, r]));
    const blocks: string[] = [];
    for (let id = 0; id < requests.length; id++) {
      const response = byId.get(id);
      if (response?.error)
        throw new SourceUnavailableError(`source: debug_getRawBlock: ${response.error.message}`);
      if (typeof response?.result !== "string") break;
      blocks.push(response.result);
    }
    return blocks;
  }

  /**
   * Subscribes to the source's new heads; `onHead` gets each head's number. Resolves once subscribed;
   * `onClose` is called when the connection ends for any reason.
   */
  subscribeNewHeads(
    onHead: (number: bigint) => void,
    onClose: (reason: string) => void,
  ): Promise<() => void> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(this.wsUrl);
      let subscribed = false;
      socket.on("open", () => {
        socket.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["newHeads"] }));
      });
      socket.on("message", (data) => {
        let message: {
          id?: number;
          result?: unknown;
          error?: { message: string };
          params?: { result?: { number?: string } };
        };
        try {
          message = JSON.parse(String(data));
        } catch {
          return;
        }
        if (message.id === 1) {
          if (message.error) {
            reject(new SourceUnavailableError(`source: eth_subscribe: ${message.error.message}`));
            socket.close();
            return;
          }
          subscribed = true;
          resolve(() => socket.close());
          return;
        }
        const number = message.params?.result?.number;
        if (typeof number === "string") onHead(BigInt(number));
      });
      socket.on("error", (error) => {
        if (!subscribed) reject(new SourceUnavailableError(`source ${this.wsUrl}: ${error.message}`));
      });
      socket.on("close", () => {
        if (subscribed) onClose("connection closed");
      });
    });
  }

  private async post(body: unknown[]): Promise<RpcResponse[]> {
    let response: Response;
    try {
      response = await fetch(this.rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new SourceUnavailableError(
        `source ${this.rpcUrl} unreachable: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const parsed: unknown = await response.json().catch(() => undefined);
    if (!Array.isArray(parsed)) {
      throw new SourceUnavailableError(
        `source ${this.rpcUrl} answered HTTP ${response.status} without a JSON-RPC batch`,
      );
    }
    return parsed as RpcResponse[];
  }
}
