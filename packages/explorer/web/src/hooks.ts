import type { RestResponse } from "@strata/gateway/rest";
import { useCallback, useEffect, useRef, useState } from "react";
import { getJson, loadConfig } from "./api.ts";

/** The state of a request: loading, failed, or loaded. */
export type Resource<T> =
  | { status: "loading"; data?: undefined; error?: undefined }
  | { status: "error"; data?: undefined; error: Error }
  | { status: "ok"; data: T; error?: undefined };

/**
 * Fetches `path` from the gateway (null skips), refetching when it changes or when `version` changes.
 * A refetch keeps showing the previous data instead of flashing the loading state.
 */
export function useApi<T>(path: string | null, version = 0): Resource<T> & { reload: () => void } {
  const [state, setState] = useState<Resource<T>>({ status: "loading" });
  const [tick, setTick] = useState(0);
  const lastPath = useRef<string | null>(null);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: version and tick are refetch triggers.
  useEffect(() => {
    if (path === null) return;
    if (lastPath.current !== path) setState({ status: "loading" });
    lastPath.current = path;
    const ctrl = new AbortController();
    getJson<T>(path, ctrl.signal).then(
      (data) => {
        // An answer that arrives after the page moved on (a newer block, another path) is not shown.
        if (!ctrl.signal.aborted) setState({ status: "ok", data });
      },
      (error: unknown) => {
        if (ctrl.signal.aborted) return;
        setState((prev) =>
          prev.status === "ok" && lastPath.current === path && version > 0
            ? prev
            : { status: "error", error: error instanceof Error ? error : new Error(String(error)) },
        );
      },
    );
    return () => ctrl.abort();
  }, [path, version, tick]);
  return { ...state, reload };
}

/**
 * A counter that goes up every {@link SETTLE_MS} while `behind` holds: a page whose data the index has
 * not caught up with looks again, even when no new block comes to make it.
 */
export function useCatchUp(behind: boolean): number {
  const [round, setRound] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: each round arms the next while still behind.
  useEffect(() => {
    if (!behind) return;
    const timer = setTimeout(() => setRound((r) => r + 1), SETTLE_MS);
    return () => clearTimeout(timer);
  }, [behind, round]);
  return round;
}

/** How the page learns about new blocks. */
export type LiveMode = "connecting" | "websocket" | "polling";

const POLL_MS = 4000;
const RECONNECT_MS = 5000;
const SETTLE_MS = 1500;

/**
 * Counts new chain heads: subscribes to `newHeads` over the gateway WebSocket and falls back to polling
 * `/v1/chain` while the socket is down. Returns a counter that changes on every new head.
 */
export function useNewHeads(): { version: number; mode: LiveMode; head: number | null } {
  const [version, setVersion] = useState(0);
  const [mode, setMode] = useState<LiveMode>("connecting");
  const [head, setHead] = useState<number | null>(null);
  useEffect(() => {
    let closed = false;
    let ws: WebSocket | null = null;
    let poll: ReturnType<typeof setInterval> | null = null;
    let retry: ReturnType<typeof setTimeout> | null = null;
    let settle: ReturnType<typeof setTimeout> | null = null;
    let lastHead = -1;
    const bump = (n: number) => {
      if (n <= lastHead) return;
      lastHead = n;
      setHead(n);
      setVersion((v) => v + 1);
      // The index may trail the node by a moment: look again once it has caught up.
      if (settle) clearTimeout(settle);
      settle = setTimeout(() => setVersion((v) => v + 1), SETTLE_MS);
    };
    const startPolling = () => {
      if (poll || closed) return;
      setMode("polling");
      const tick = () =>
        getJson<RestResponse<"/v1/chain">>("/v1/chain").then(
          (c) => bump(c.blockNumber ?? -1),
          () => undefined,
        );
      poll = setInterval(tick, POLL_MS);
    };
    const stopPolling = () => {
      if (poll) clearInterval(poll);
      poll = null;
    };
    const connect = async () => {
      const { wsUrl } = await loadConfig().catch(() => ({ wsUrl: "" }));
      if (closed) return;
      if (!wsUrl) return startPolling();
      try {
        ws = new WebSocket(wsUrl);
      } catch {
        return startPolling();
      }
      ws.onopen = () => {
        ws?.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["newHeads"] }));
      };
      ws.onmessage = (ev) => {
        const msg = JSON.parse(String(ev.data)) as {
          id?: number;
          error?: unknown;
          params?: { result?: { number?: string } };
        };
        if (msg.id === 1) {
          if (msg.error) {
            ws?.close();
            return;
          }
          stopPolling();
          setMode("websocket");
          return;
        }
        const n = msg.params?.result?.number;
        if (typeof n === "string") bump(Number.parseInt(n, 16));
      };
      ws.onclose = () => {
        ws = null;
        if (closed) return;
        startPolling();
        retry = setTimeout(connect, RECONNECT_MS);
      };
    };
    void connect();
    return () => {
      closed = true;
      stopPolling();
      if (retry) clearTimeout(retry);
      if (settle) clearTimeout(settle);
      ws?.close();
    };
  }, []);
  return { version, mode, head };
}

/** Re-renders every `ms` milliseconds, for "12 s ago" labels. */
export function useNow(ms = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}
