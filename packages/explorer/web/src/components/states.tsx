import { ApiError } from "../api.ts";

/** Shown while a section loads. */
export function Loading({ label = "Loading" }: { label?: string }) {
  return (
    <div className="state loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {label}…
    </div>
  );
}

/**
 * Shown when a section fails. A missing feature reads as "not available", not as a failure: for a
 * `feature` section (staking, DePIN, predictions…) a 404 of the whole section means the same.
 */
export function ErrorView({
  error,
  what,
  onRetry,
  feature = false,
}: {
  error: Error;
  what?: string;
  onRetry?: () => void;
  feature?: boolean;
}) {
  if (error instanceof ApiError && (error.notAvailable || (feature && error.notFound))) {
    return <NotAvailable what={what} />;
  }
  if (error instanceof ApiError && error.notFound) {
    return (
      <div className="state not-found" role="alert">
        {what ? `${what} not found.` : "Not found."} <span className="muted">{error.message}</span>
      </div>
    );
  }
  return (
    <div className="state error" role="alert">
      <strong>Something went wrong{what ? ` loading ${what.toLowerCase()}` : ""}.</strong>{" "}
      <span className="muted">{error.message}</span>
      {onRetry ? (
        <button type="button" className="retry" onClick={onRetry}>
          Retry
        </button>
      ) : null}
    </div>
  );
}

/** Shown when this network does not serve a feature (no staking, no DePIN registry, no predictor…). */
export function NotAvailable({ what }: { what?: string | undefined }) {
  return (
    <div className="state not-available" role="note">
      {what ?? "This section"} is not available on this network.
    </div>
  );
}
