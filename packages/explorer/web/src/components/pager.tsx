import type { Page } from "@strata/gateway/rest";
import { useState } from "react";
import { useApi } from "../hooks.ts";
import { ErrorView, Loading } from "./states.tsx";

/**
 * Loads a cursor-paginated list (`{items, nextCursor}`) page by page and renders it with `render`;
 * "Newer" goes back through the cursors already seen.
 */
export function Paged<T>({
  path,
  limit = 25,
  what,
  version = 0,
  render,
  empty = "Nothing here yet.",
  feature = false,
}: {
  path: string;
  limit?: number;
  what: string;
  version?: number;
  render: (items: T[]) => React.ReactNode;
  empty?: string;
  /** A 404 of the list means the feature is absent on this network. */
  feature?: boolean;
}) {
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const sep = path.includes("?") ? "&" : "?";
  const url = `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
  // Only the first page follows the live head; older pages stay put while you read them.
  const page = useApi<Page<T>>(url, cursor ? 0 : version);
  if (page.status === "loading") return <Loading label={`Loading ${what.toLowerCase()}`} />;
  if (page.status === "error")
    return <ErrorView error={page.error} what={what} onRetry={page.reload} feature={feature} />;
  const { items, nextCursor } = page.data;
  return (
    <>
      {items.length === 0 ? <p className="muted empty">{empty}</p> : render(items)}
      {cursors.length > 0 || nextCursor ? (
        <div className="pager">
          <button
            type="button"
            disabled={cursors.length === 0}
            onClick={() => setCursors(cursors.slice(0, -1))}
          >
            ← Newer
          </button>
          <span className="muted">Page {cursors.length + 1}</span>
          <button
            type="button"
            disabled={!nextCursor}
            onClick={() => nextCursor && setCursors([...cursors, nextCursor])}
          >
            Older →
          </button>
        </div>
      ) : null}
    </>
  );
}
