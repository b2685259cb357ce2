import { shortHash } from "../format.ts";
import { Link } from "../router.tsx";
import { systemAddress } from "../system-addresses.ts";

/**
 * Link to an address page, shortened unless `full`. A system contract or the system caller shows its
 * name instead, with the address on hover (and after the name when `full`).
 */
export function AddressLink({
  address,
  full = false,
}: {
  address: string | null | undefined;
  full?: boolean;
}) {
  if (!address) return <span className="muted">–</span>;
  const known = systemAddress(address);
  if (known) {
    return (
      <Link
        to={`/address/${address}`}
        className="address-name"
        title={`${known.name}: ${address}`}
        data-address={address.toLowerCase()}
      >
        {known.name}
        {full ? <span className="mono muted break"> {address}</span> : null}
      </Link>
    );
  }
  return (
    <Link to={`/address/${address}`} className="mono" title={address}>
      {full ? address : shortHash(address)}
    </Link>
  );
}

/** Link to a transaction page. */
export function TxLink({ hash, full = false }: { hash: string | null | undefined; full?: boolean }) {
  if (!hash) return <span className="muted">–</span>;
  return (
    <Link to={`/tx/${hash}`} className="mono" title={hash}>
      {full ? hash : shortHash(hash)}
    </Link>
  );
}

/** Link to a block page by number (or hash). */
export function BlockLink({ block }: { block: number | string | null | undefined }) {
  if (block === null || block === undefined) return <span className="muted">pending</span>;
  return (
    <Link to={`/block/${block}`} className="mono">
      {typeof block === "number" ? block.toLocaleString("en-US") : shortHash(block)}
    </Link>
  );
}

/** Link to a token page, labelled with its symbol when known. */
export function TokenLink({ address, symbol }: { address: string; symbol?: string | null | undefined }) {
  return (
    <Link to={`/token/${address}`} title={address}>
      {symbol || shortHash(address)}
    </Link>
  );
}

/** A status pill: success / reverted / pending, active / jailed… */
export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${status.toLowerCase().replace(/[^a-z]/g, "")}`}>{status}</span>;
}
