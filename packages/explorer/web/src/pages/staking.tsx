import type { AprWindow, RestResponse } from "@strata/gateway/rest";
import { Card, Fields, Stat } from "../components/layout.tsx";
import { ErrorView, Loading } from "../components/states.tsx";
import { formatEther, formatFraction, formatNumber } from "../format.ts";
import { useApi, useNewHeads } from "../hooks.ts";
import { Link } from "../router.tsx";

/** "over blocks 0–199 (10 epochs, 2.1 h)", or what is missing before a full window exists. */
function aprWindowText(window: AprWindow | null): string {
  if (!window) return "measured once the first epoch ends";
  const blocks = `blocks ${formatNumber(window.fromBlock)}–${formatNumber(window.toBlock)}`;
  if (!window.complete) return `measuring: ${window.epochs} of ${window.fullEpochs} epochs (${blocks})`;
  return `over ${blocks} (${window.epochs} epochs, ${formatDuration(window.seconds)})`;
}

function formatDuration(seconds: number): string {
  if (seconds < 120) return `${formatNumber(seconds)} s`;
  if (seconds < 7200) return `${formatNumber(seconds / 60, 1)} min`;
  if (seconds < 172_800) return `${formatNumber(seconds / 3600, 1)} h`;
  return `${formatNumber(seconds / 86_400, 1)} d`;
}

/** Staking overview: total stake, epoch progress, rewards and APR. */
export function StakingPage() {
  const { version } = useNewHeads();
  const info = useApi<RestResponse<"/v1/staking">>("/v1/staking", version);
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
        <Stat
          label="APR"
          value={<span data-testid="apr">{s.aprWindow?.complete ? formatFraction(s.apr) : "-"}</span>}
          hint={aprWindowText(s.aprWindow)}
        />
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
