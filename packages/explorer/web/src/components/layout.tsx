import { type FormEvent, useState } from "react";
import { Link, navigate, useLocation } from "../router.tsx";

const NAV = [
  { to: "/", label: "Home" },
  { to: "/blocks", label: "Blocks" },
  { to: "/txs", label: "Transactions" },
  { to: "/tokens", label: "Tokens" },
  { to: "/validators", label: "Validators" },
  { to: "/staking", label: "Staking" },
  { to: "/depin", label: "DePIN" },
  { to: "/predictions", label: "Predictions" },
];

/** The search box: a block number, a transaction or block hash, an address or a token. */
export function SearchBox() {
  const { query } = useLocation();
  const [q, setQ] = useState(query.get("q") ?? "");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const s = q.trim();
    if (s) navigate(`/search?q=${encodeURIComponent(s)}`);
  };
  return (
    <form className="search" aria-label="Search" onSubmit={submit}>
      <input
        type="search"
        name="q"
        aria-label="Search by block number, hash or address"
        placeholder="Block number, tx hash, block hash or address"
        value={q}
        onChange={(e) => setQ(e.target.value)}
        spellCheck={false}
        autoComplete="off"
      />
      <button type="submit">Search</button>
    </form>
  );
}

/** Page frame: header with navigation and search, then the page. */
export function Layout({ children }: { children: React.ReactNode }) {
  const { path } = useLocation();
  const [open, setOpen] = useState(false);
  const active = (to: string) => (to === "/" ? path === "/" : path === to || path.startsWith(`${to}/`));
  return (
    <>
      <header className="topbar">
        <div className="topbar-inner">
          <Link to="/" className="brand">
            <span className="logo" aria-hidden="true">
              ◆
            </span>{" "}
            Strata Explorer
          </Link>
          <button
            type="button"
            className="menu-toggle"
            aria-expanded={open}
            aria-label="Menu"
            onClick={() => setOpen(!open)}
          >
            ☰
          </button>
          <nav className={open ? "nav open" : "nav"} aria-label="Main">
            {NAV.map((n) => (
              <Link
                key={n.to}
                to={n.to}
                className={active(n.to) ? "active" : undefined}
                onClick={() => setOpen(false)}
              >
                {n.label}
              </Link>
            ))}
          </nav>
        </div>
        <div className="topbar-search">
          <SearchBox key={path} />
        </div>
      </header>
      <main className="content">{children}</main>
      <footer className="footer muted">Strata Explorer · data from the Strata API gateway</footer>
    </>
  );
}

/** A titled card. */
export function Card({
  title,
  children,
  actions,
  className,
}: {
  title?: React.ReactNode;
  children: React.ReactNode;
  actions?: React.ReactNode;
  className?: string;
}) {
  return (
    <section className={className ? `card ${className}` : "card"}>
      {title ? (
        <div className="card-head">
          <h2>{title}</h2>
          {actions}
        </div>
      ) : null}
      {children}
    </section>
  );
}

/** A two-column list of labelled values, stacking on phones. */
export function Fields({ rows }: { rows: [string, React.ReactNode][] }) {
  return (
    <dl className="fields">
      {rows.map(([k, v]) => (
        <div className="field" key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A small headline number. */
export function Stat({ label, value, hint }: { label: string; value: React.ReactNode; hint?: string }) {
  return (
    <div className="stat">
      <div className="stat-label">{label}</div>
      <div className="stat-value">{value}</div>
      {hint ? <div className="stat-hint muted">{hint}</div> : null}
    </div>
  );
}
