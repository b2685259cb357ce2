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
    <div className="page">
      <h1>Blocks</h1>
      <Card>
        <Paged<Block>
          path="/v1/blocks"
          what="Blocks"
          version={version}
          render={(b) => <BlocksTable blocks={b} />}
        />
      </Card>
    </div>
  );
}

/** All transactions, newest first, paged. */
export function TransactionsPage() {
  const { version } = useNewHeads();
  return (
    <div className="page">
      <h1>Transactions</h1>
      <Card>
        <Paged<TransactionSummary>
          path="/v1/transactions"
          what="Transactions"
          version={version}
          empty="No transactions yet."
          render={(t) => <TxTable txs={t} />}
        />
      </Card>
    </div>
  );
}

/** ERC-20 tokens the indexer has seen. */
export function TokensPage() {
  return (
    <div className="page">
      <h1>Tokens</h1>
      <Card>
        <Paged<Token>
          path="/v1/tokens"
          what="Tokens"
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
      </Card>
    </div>
  );
}
