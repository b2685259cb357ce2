import { Card, Fields, Stat } from "../components/layout.tsx";
import { ErrorView, Loading } from "../components/states.tsx";
import { formatEther, formatNumber, formatPercent } from "../format.ts";
import { useApi, useNewHeads } from "../hooks.ts";
import { Link } from "../router.tsx";
import type { StakingInfo } from "../types.ts";

/** Staking overview: total stake, epoch progress, rewards and APR. */
export function StakingPage() {
  const { version } = useNewHeads();
  const info = useApi<StakingInfo>("/v1/staking", version);
  if (info.status === "loading") return <Loading label="Loading staking" />;
  if (info.status === "error")
    return <ErrorView error={info.error} what="Staking" onRetry={info.reload} feature />;
  const s = info.data;
  return (
    <div className="page">
      <h1>Staking</h1>
      <div className="stats" data-testid="staking-stats">
        <Stat label="Total staked" value={formatEther(s.totalStaked)} />
        <Stat label="Validators" value={`${s.activeValidatorCount} active / ${s.validatorCount}`} />
        <Stat label="APR" value={formatPercent(s.apr)} />
        <Stat
          label="Epoch"
          value={formatNumber(s.epoch)}
          hint={`next at block ${formatNumber(s.nextEpochBlock)}`}
        />
      </div>
      <Card>
        <Fields
          rows={[
            ["Minimum validator stake", formatEther(s.minValidatorStake)],
            ["Epoch length", `${formatNumber(s.epochLength)} blocks`],
            ["Next epoch block", formatNumber(s.nextEpochBlock)],
            ["Unbonding period", `${formatNumber(s.unbondingPeriod)} blocks`],
            ["Block reward", formatEther(s.blockReward)],
          ]}
        />
        <p>
          <Link to="/validators">See the validators →</Link>
        </p>
      </Card>
    </div>
  );
}
