import { PageErrorBoundary } from "./components/error-boundary.tsx";
import { Layout } from "./components/layout.tsx";
import { AddressPage } from "./pages/address.tsx";
import { BlockPage } from "./pages/block.tsx";
import { DepinPage } from "./pages/depin.tsx";
import { HomePage } from "./pages/home.tsx";
import { BlocksPage, TokensPage, TransactionsPage } from "./pages/lists.tsx";
import { PredictionsPage } from "./pages/predictions.tsx";
import { SearchPage } from "./pages/search.tsx";
import { StakingPage } from "./pages/staking.tsx";
import { TokenPage } from "./pages/token.tsx";
import { TransactionPage } from "./pages/transaction.tsx";
import { ValidatorsPage } from "./pages/validators.tsx";
import { type Location, matchRoute, RouterProvider, useLocation } from "./router.tsx";

type Route = [
  pattern: string,
  render: (params: Record<string, string>, location: Location) => React.ReactNode,
];

const ROUTES: Route[] = [
  ["/", () => <HomePage />],
  ["/blocks", () => <BlocksPage />],
  ["/block/:id", (p) => <BlockPage key={p.id} id={p.id!} />],
  ["/txs", () => <TransactionsPage />],
  ["/tx/:hash", (p) => <TransactionPage key={p.hash} hash={p.hash!} />],
  ["/address/:address", (p) => <AddressPage key={p.address} address={p.address!} />],
  ["/tokens", () => <TokensPage />],
  ["/token/:address", (p) => <TokenPage key={p.address} address={p.address!} />],
  ["/search", (_, l) => <SearchPage q={l.query.get("q") ?? ""} />],
  ["/validators", () => <ValidatorsPage />],
  ["/staking", () => <StakingPage />],
  ["/depin", () => <DepinPage />],
  ["/predictions", () => <PredictionsPage />],
  ["/predictions/:asset", (p) => <PredictionsPage asset={p.asset} />],
];

function Routes() {
  const location = useLocation();
  for (const [pattern, render] of ROUTES) {
    const params = matchRoute(pattern, location.path);
    if (params) return <PageErrorBoundary key={location.path}>{render(params, location)}</PageErrorBoundary>;
  }
  return (
    <div className="page">
      <h1>Page not found</h1>
      <p className="muted">There is nothing at {location.path}.</p>
    </div>
  );
}

/** The explorer app: layout plus the page for the current URL. */
export function App() {
  return (
    <RouterProvider>
      <Layout>
        <Routes />
      </Layout>
    </RouterProvider>
  );
}
