import type { Block, Token, TransactionSummary } from "@strata/gateway/rest";
import { Card } from "../components/layout.tsx";
import { TokenLink } from "../components/links.tsx";
import { Paged } from "../components/pager.tsx";
import { BlocksTable, TxTable } from "../components/tables.tsx";
import { formatUnits } from "../format.ts";
import { useNewHeads } from "../hooks.ts";

/** All blocks, newest first, paged. */
export function BlocksPage() {
  const { version } = useNewHeads();
  return (
    <ListPage<Block>
      title="Blocks"
      path="/v1/blocks"
      version={version}
      render={(b) => <BlocksTable blocks={b} />}
    />
  );
}

/** All transactions, newest first, paged. */
export function TransactionsPage() {
  const { version } = useNewHeads();
  return (
    <ListPage<TransactionSummary>
      title="Transactions"
      path="/v1/transactions"
      version={version}
      empty="No transactions yet."
      render={(t) => <TxTable txs={t} />}
    />
  );
}

/** ERC-20 tokens the indexer has seen. */
export function TokensPage() {
  return (
    <ListPage<Token>
      title="Tokens"
      path="/v1/tokens"
      empty="No ERC-20 tokens have been seen on this chain yet."
      render={(tokens) => (
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th>Token</th>
                <th className="hide-sm">Name</th>
                <th className="num">Total supply</th>
              </tr>
            </thead>
            <tbody>
              {tokens.map((t) => (
                <tr key={t.address}>
                  <td>
                    <TokenLink address={t.address} symbol={t.symbol} />
                  </td>
                  <td className="hide-sm">{t.name ?? "–"}</td>
                  <td className="num">
                    {t.decimals === null ? t.totalSupply : formatUnits(t.totalSupply, t.decimals, 2)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    />
  );
}

/** A page of one paged list, titled `title` (also the list's name in its loading and error states). */
function ListPage<T>({
  title,
  ...paged
}: {
  title: string;
  path: string;
  version?: number;
  empty?: string;
  render: (items: T[]) => React.ReactNode;
}) {
  return (
    <div className="page">
      <h1>{title}</h1>
      <Card>
        <Paged<T> {...paged} what={title} />
      </Card>
    </div>
  );
}
