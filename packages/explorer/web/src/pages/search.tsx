import type { SearchResult } from "@strata/gateway/rest";
import { useEffect, useState } from "react";
import { getJson } from "../api.ts";
import { Card } from "../components/layout.tsx";
import { ErrorView, Loading } from "../components/states.tsx";
import { navigate } from "../router.tsx";

/** Where a search result lives in the explorer. */
export function resultPath(r: SearchResult): string | null {
  if (r.type === null || r.value === null) return null;
  const v = String(r.value);
  switch (r.type) {
    case "block":
      return `/block/${v}`;
    case "transaction":
      return `/tx/${v}`;
    case "address":
      return `/address/${v}`;
    case "token":
      return `/token/${v}`;
  }
}

/** Asks the gateway what `q` is (block number or hash, transaction, address, token) and goes there. */
export function SearchPage({ q }: { q: string }) {
  const [state, setState] = useState<
    { status: "loading" } | { status: "none" } | { status: "error"; error: Error }
  >({ status: "loading" });
  useEffect(() => {
    const query = q.trim();
    if (!query) {
      setState({ status: "none" });
      return;
    }
    const ctrl = new AbortController();
    setState({ status: "loading" });
    getJson<SearchResult>(`/v1/search?q=${encodeURIComponent(query)}`, ctrl.signal).then(
      (r) => {
        const to = resultPath(r);
        if (to) navigate(to, true);
        else setState({ status: "none" });
      },
      (error: Error) => {
        if (!ctrl.signal.aborted) setState({ status: "error", error });
      },
    );
    return () => ctrl.abort();
  }, [q]);
  return (
    <div className="page">
      <h1>Search</h1>
      {state.status === "loading" ? (
        <Loading label={`Searching for “${q}”`} />
      ) : state.status === "error" ? (
        <ErrorView error={state.error} what="Search" />
      ) : (
        <Card>
          <p data-testid="no-results">
            Nothing found for <span className="mono break">“{q}”</span>.
          </p>
          <p className="muted">
            Try a block number, a block or transaction hash (0x + 64 hex), or an address (0x + 40 hex).
          </p>
        </Card>
      )}
    </div>
  );
}
