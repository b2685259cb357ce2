// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {SystemCallable} from "./SystemCallable.sol";

/// @title Strata staking: validators, delegation, unbonding, rewards and jailing.
/// @notice Predeployed at 0x0000000000000000000000000000000000001000.
///
/// Epochs are defined by block number: epoch `e` is blocks `[e * epochLength, (e + 1) * epochLength)`.
/// The node makes two system calls (msg.sender == SYSTEM_ADDRESS):
///  - `recordSlot(proposer, missed)` once per block, which keeps proposal statistics, a ring of the
///    last uptimeWindow slots, and jails validators after `jailThreshold` consecutive misses;
///  - `distributeRewards()` once per epoch, in its last block, with msg.value = the epoch's block
///    rewards plus fees. It credits the set's unjailed members pro rata to stake and then recomputes
///    the validator set (top `maxValidators` by stake) of the next epoch.
///
/// The validator set (`validatorSet()`) is also the set of finality voters. Jailing for missed slots
/// takes a validator out of the proposer rotation only: it keeps its place in the set and its stake
/// keeps counting towards the two thirds a finality attestation needs, so that validators on one
/// side of a network partition can never jail those on the other side out of the quorum and
/// finalize on their own. Only a double signer (jailed for good) leaves the set at once.
///
/// Amounts are wei; commission is a fraction in 1e18 fixed point (5 % = 0.05e18).
contract Staking is SystemCallable {
    // ------------------------------------------------------------------ constants

    uint256 public constant COMMISSION_PRECISION = 1e18;
    /// @notice Upper bound on bonded validators (keeps the epoch-end selection bounded in gas).
    uint256 public constant MAX_CANDIDATES = 256;
    /// @notice Upper bound on pending unbonding entries per account.
    uint256 public constant MAX_UNBONDING_ENTRIES = 32;
    /// @notice Fixed-point scale of the per-validator delegator reward accumulator. Remainders of
    /// the accumulator divisions are kept (never dropped) in this unit, 1e-36 wei.
    uint256 public constant REWARD_PRECISION = 1e36;
    /// @notice Share of a double signer's bonded stake slashed, self-stake and every delegation
    /// alike, in COMMISSION_PRECISION fixed point: 10 %.
    uint256 public constant DOUBLE_SIGN_SLASH = 0.1e18;
    /// @notice Upper bound on delegators per validator (keeps slashing a validator bounded in gas).
    uint256 public constant MAX_DELEGATORS = 256;
    /// @notice Type hash of a finality vote: a vote signs
    /// keccak256(abi.encode(VOTE_TYPEHASH, chainId, number, blockHash)) (docs/consensus.md "Finality").
    bytes32 public constant VOTE_TYPEHASH = keccak256("StrataFinalityVote(uint256 chainId,uint256 number,bytes32 hash)");

    // ------------------------------------------------------------------ types

    enum ValidatorStatus {
        Active,
        Inactive,
        Jailed,
        Unbonding
    }

    struct Config {
        uint256 minSelfStake;
        uint256 maxValidators;
        uint256 epochLength;
        uint256 unbondingPeriod;
        uint256 maxCommissionChangePerEpoch;
        uint256 jailThreshold;
        uint256 jailCooldown;
        uint256 blockReward;
        uint256 uptimeWindow;
    }

    struct GenesisValidator {
        address validator;
        uint256 commission;
        uint256 selfStake;
    }

    struct ValidatorInfo {
        address validator;
        uint256 selfStake;
        uint256 delegatedStake;
        uint256 totalStake;
        uint256 commission;
        ValidatorStatus status;
        uint256 blocksProposed;
        uint256 blocksMissed;
        uint256 windowProposed;
        uint256 windowMissed;
        uint256 missedInRow;
        bool jailed;
        uint256 jailedUntil;
        uint256 registeredAt;
        uint256 unbondingUntil;
    }

    struct DelegationInfo {
        address validator;
        uint256 amount;
        uint256 pendingRewards;
    }

    struct UnbondingInfo {
        address validator;
        uint256 amount;
        uint256 completionBlock;
    }

    struct SlotInfo {
        uint256 blockNumber;
        address proposer;
        address[] missed;
    }

    struct Stake {
        uint128 self;
        uint128 delegated;
    }

    /// @dev One storage word, the only one recordSlot touches per validator.
    struct Stats {
        uint64 blocksProposed;
        uint64 blocksMissed;
        uint32 windowProposed;
        uint32 windowMissed;
        uint32 missedInRow;
        bool jailed;
        bool registered;
    }

    struct Meta {
        uint64 commission;
        uint64 commissionBase;
        uint64 commissionEpoch;
        uint64 registeredAt;
        uint64 jailedUntil;
        uint64 unbondingUntil;
    }

    struct Pool {
        uint256 accRewardPerShare;
        uint256 carry;
    }

    struct Delegation {
        uint128 amount;
        uint256 accSnapshot;
    }

    struct UnbondingEntry {
        address validator;
        uint64 completionBlock;
        uint128 amount;
    }

    // ------------------------------------------------------------------ configuration

    uint256 public immutable minSelfStake;
    uint256 public immutable maxValidators;
    uint256 public immutable epochLength;
    uint256 public immutable unbondingPeriod;
    uint256 public immutable maxCommissionChangePerEpoch;
    uint256 public immutable jailThreshold;
    uint256 public immutable jailCooldown;
    uint256 public immutable blockReward;
    /// @notice Number of most recent slots over which `windowProposed` / `windowMissed` are kept.
    uint256 public immutable uptimeWindow;

    // ------------------------------------------------------------------ state

    mapping(address => Stake) private _stake;
    mapping(address => Stats) private _stats;
    mapping(address => Meta) private _meta;
    mapping(address => Pool) private _pool;

    address[] private _validatorList;
    address[] private _candidates;
    mapping(address => uint256) private _candidateIndex; // 1-based
    address[] private _activeSet;
    mapping(address => uint256) private _activeIndex; // 1-based

    mapping(address => mapping(address => Delegation)) private _delegations; // validator => delegator
    mapping(address => address[]) private _delegatedTo;
    mapping(address => mapping(address => uint256)) private _delegatedToIndex; // 1-based
    mapping(address => UnbondingEntry[]) private _unbonding;

    mapping(address => address[]) private _delegators; // validator => delegators with a non-zero delegation
    mapping(address => mapping(address => uint256)) private _delegatorIndex; // 1-based
    /// @dev keccak256(validator, block number) of every double-sign offence already slashed.
    mapping(bytes32 => bool) private _offenceSlashed;

    mapping(address => uint256) private _accrued; // settled rewards, wei
    mapping(address => uint256) private _residue; // settled sub-wei remainder, REWARD_PRECISION scale

    /// @dev Ring of the last uptimeWindow slots: proposer | blockNumber << 160 | missedCount << 224.
    mapping(uint256 => uint256) private _slotRing;
    mapping(uint256 => mapping(uint256 => address)) private _slotMissed;
    uint64 private _slotCount;
    uint64 private _lastSlotBlock;
    uint64 private _lastDistributedEpoch;
    bool private _distributedOnce;

    /// @notice Sum of all bonded stake (self + delegated), excluding unbonding amounts.
    uint256 public totalStaked;
    /// @notice Sum of all amounts waiting in unbonding queues.
    uint256 public totalUnbonding;
    /// @notice Sum of all rewards credited by distributeRewards.
    uint256 public totalRewardsDistributed;
    /// @notice Sum of all rewards paid out by claimRewards.
    uint256 public totalRewardsClaimed;
    /// @notice Rewards received while no stake was active, credited at the next distribution.
    uint256 public undistributedRewards;
    /// @notice Sum of all stake slashed for double signing; it stays locked in the contract (burned).
    uint256 public totalSlashed;

    bool private transient _locked;

    // ------------------------------------------------------------------ events

    event ValidatorRegistered(address indexed validator, uint256 selfStake, uint256 commission);
    event Delegated(address indexed delegator, address indexed validator, uint256 amount);
    event Undelegated(
        address indexed delegator, address indexed validator, uint256 amount, uint256 completionBlock
    );
    event ValidatorExited(address indexed validator, uint256 unbondingUntil);
    event Withdrawn(address indexed account, uint256 amount);
    event RewardsClaimed(address indexed account, uint256 amount);
    event CommissionChanged(address indexed validator, uint256 oldCommission, uint256 newCommission);
    event ValidatorJailed(address indexed validator, uint256 jailedUntil, uint256 missedInRow);
    event ValidatorUnjailed(address indexed validator);
    event SlotRecorded(uint256 indexed blockNumber, address indexed proposer, address[] missed);
    event RewardsDistributed(uint256 indexed epoch, uint256 amount, uint256 validatorCount);
    event RewardsDeferred(uint256 indexed epoch, uint256 amount);
    event ValidatorRewarded(
        uint256 indexed epoch, address indexed validator, uint256 validatorAmount, uint256 delegatorsAmount
    );
    event ActiveSetUpdated(uint256 indexed epoch, address[] validators);
    /// @notice `kind` 0: two sealed blocks at `blockNumber`; 1: two finality votes at `blockNumber`.
    event ValidatorSlashed(
        address indexed validator, uint256 indexed blockNumber, uint8 kind, uint256 amount, address reporter
    );

    // ------------------------------------------------------------------ errors

    error InvalidConfig(string field);
    error GenesisStakeMismatch(uint256 expected, uint256 received);
    error ZeroAmount();
    error StakeBelowMinimum(uint256 amount, uint256 minimum);
    error CommissionTooHigh(uint256 commission, uint256 maximum);
    error AlreadyRegistered(address validator);
    error UnknownValidator(address validator);
    error ValidatorNotBonded(address validator);
    error TooManyValidators(uint256 maximum);
    error InsufficientStake(uint256 available, uint256 requested);
    error TooManyUnbondingEntries(uint256 maximum);
    error NothingToWithdraw();
    error UnbondingNotComplete(uint256 nextCompletionBlock);
    error NoRewards();
    error CommissionChangeTooLarge(uint256 epochStartCommission, uint256 requested, uint256 maxChange);
    error NotJailed(address validator);
    error JailCooldownActive(uint256 jailedUntil);
    error SlotAlreadyRecorded(uint256 blockNumber);
    error EpochAlreadyDistributed(uint256 epoch);
    error TransferFailed(address to, uint256 amount);
    error Reentrancy();
    error AmountTooLarge(uint256 amount);
    error InvalidEvidence(string reason);
    error OffenceAlreadySlashed(address validator, uint256 blockNumber);
    error TooManyDelegators(uint256 maximum);

    modifier nonReentrant() {
        if (_locked) revert Reentrancy();
        _locked = true;
        _;
        _locked = false;
    }

    // ------------------------------------------------------------------ construction

    /// @param cfg network parameters (immutable).
    /// @param genesisValidators initial validators; msg.value must equal the sum of their selfStake.
    constructor(Config memory cfg, GenesisValidator[] memory genesisValidators) payable {
        if (cfg.maxValidators == 0) revert InvalidConfig("maxValidators");
        if (cfg.epochLength == 0) revert InvalidConfig("epochLength");
        if (cfg.jailThreshold == 0 || cfg.jailThreshold > type(uint32).max) {
            revert InvalidConfig("jailThreshold");
        }
        if (cfg.maxCommissionChangePerEpoch > COMMISSION_PRECISION) {
            revert InvalidConfig("maxCommissionChangePerEpoch");
        }
        if (cfg.unbondingPeriod > type(uint32).max) revert InvalidConfig("unbondingPeriod");
        if (cfg.jailCooldown > type(uint32).max) revert InvalidConfig("jailCooldown");
        if (cfg.uptimeWindow == 0 || cfg.uptimeWindow > type(uint32).max) revert InvalidConfig("uptimeWindow");
        minSelfStake = cfg.minSelfStake;
        maxValidators = cfg.maxValidators;
        epochLength = cfg.epochLength;
        unbondingPeriod = cfg.unbondingPeriod;
        maxCommissionChangePerEpoch = cfg.maxCommissionChangePerEpoch;
        jailThreshold = cfg.jailThreshold;
        jailCooldown = cfg.jailCooldown;
        blockReward = cfg.blockReward;
        uptimeWindow = cfg.uptimeWindow;

        uint256 sum;
        for (uint256 i; i < genesisValidators.length; ++i) {
            GenesisValidator memory g = genesisValidators[i];
            if (g.validator == address(0)) revert InvalidConfig("genesisValidators");
            _register(
                g.validator,
                g.commission,
                g.selfStake,
                cfg.minSelfStake,
                block.number / cfg.epochLength,
                cfg.maxCommissionChangePerEpoch
            );
            sum += g.selfStake;
        }
        if (sum != msg.value) revert GenesisStakeMismatch(sum, msg.value);
        _updateActiveSet(block.number / cfg.epochLength, cfg.maxValidators);
    }

    // ------------------------------------------------------------------ validator and delegator actions

    /// @notice Become a validator with msg.value as self-stake. A validator that exited (self-stake 0)
    /// may register again; its statistics and delegations are kept.
    function registerValidator(uint256 commission) external payable {
        _register(msg.sender, commission, msg.value, minSelfStake, currentEpoch(), maxCommissionChangePerEpoch);
    }

    /// @notice Bond msg.value to `validator`. When the validator itself calls, it adds self-stake.
    function delegate(address validator) external payable {
        if (msg.value == 0) revert ZeroAmount();
        Stake memory st = _bondedValidatorStake(validator);
        if (msg.sender == validator) {
            st.self = _u128(uint256(st.self) + msg.value);
        } else {
            Delegation storage d = _delegations[validator][msg.sender];
            _settle(validator, msg.sender, d);
            if (d.amount == 0) _addDelegatedTo(msg.sender, validator);
            d.amount = _u128(uint256(d.amount) + msg.value);
            st.delegated = _u128(uint256(st.delegated) + msg.value);
        }
        _stake[validator] = st;
        totalStaked += msg.value;
        emit Delegated(msg.sender, validator, msg.value);
    }

    /// @notice Start unbonding `amount` from `validator`; it can be withdrawn after `unbondingPeriod`
    /// blocks. When the validator itself calls, it reduces self-stake, which must stay at least
    /// `minSelfStake` or become zero (exit: the validator leaves the active set at once).
    function undelegate(address validator, uint256 amount) external {
        if (amount == 0) revert ZeroAmount();
        if (!_stats[validator].registered) revert UnknownValidator(validator);
        Stake memory st = _stake[validator];
        uint256 completion = block.number + unbondingPeriod;
        if (msg.sender == validator) {
            if (amount > st.self) revert InsufficientStake(st.self, amount);
            uint256 remaining = st.self - amount;
            if (remaining != 0 && remaining < minSelfStake) revert StakeBelowMinimum(remaining, minSelfStake);
            st.self = uint128(remaining);
            if (remaining == 0) {
                _removeActive(validator);
                _removeCandidate(validator);
                _meta[validator].unbondingUntil = uint64(completion);
                emit ValidatorExited(validator, completion);
            }
        } else {
            Delegation storage d = _delegations[validator][msg.sender];
            if (amount > d.amount) revert InsufficientStake(d.amount, amount);
            _settle(validator, msg.sender, d);
            d.amount -= uint128(amount);
            st.delegated -= uint128(amount);
            if (d.amount == 0) _removeDelegatedTo(msg.sender, validator);
        }
        _stake[validator] = st;

        UnbondingEntry[] storage queue = _unbonding[msg.sender];
        if (queue.length >= MAX_UNBONDING_ENTRIES) revert TooManyUnbondingEntries(MAX_UNBONDING_ENTRIES);
        queue.push(UnbondingEntry(validator, uint64(completion), uint128(amount)));
        totalStaked -= amount;
        totalUnbonding += amount;
        emit Undelegated(msg.sender, validator, amount, completion);
    }

    /// @notice Pay out every unbonding entry of the caller whose completion block has been reached.
    function withdraw() external nonReentrant {
        UnbondingEntry[] storage queue = _unbonding[msg.sender];
        uint256 len = queue.length;
        if (len == 0) revert NothingToWithdraw();
        uint256 total;
        uint256 kept;
        uint256 earliest = type(uint256).max;
        for (uint256 i; i < len; ++i) {
            UnbondingEntry memory e = queue[i];
            if (e.completionBlock <= block.number) {
                total += e.amount;
            } else {
                if (e.completionBlock < earliest) earliest = e.completionBlock;
                if (kept != i) queue[kept] = e;
                ++kept;
            }
        }
        if (total == 0) revert UnbondingNotComplete(earliest);
        for (uint256 i = len; i > kept; --i) {
            queue.pop();
        }
        totalUnbonding -= total;
        emit Withdrawn(msg.sender, total);
        _pay(msg.sender, total);
    }

    /// @notice Pay all pending rewards of the caller (own validator rewards and every delegation).
    function claimRewards() external nonReentrant {
        address[] storage list = _delegatedTo[msg.sender];
        for (uint256 i; i < list.length; ++i) {
            address v = list[i];
            _settle(v, msg.sender, _delegations[v][msg.sender]);
        }
        _payRewards();
    }

    /// @notice Settle the caller's delegation to `validator` and pay all settled rewards (own
    /// validator rewards, this delegation, and delegations settled earlier).
    function claimRewards(address validator) external nonReentrant {
        _settle(validator, msg.sender, _delegations[validator][msg.sender]);
        _payRewards();
    }

    /// @notice Change the caller's commission. Within one epoch the commission may move at most
    /// `maxCommissionChangePerEpoch` away from its value at the epoch's first change (re-registering
    /// after an exit is bound the same way).
    function setCommission(uint256 newCommission) external {
        if (!_stats[msg.sender].registered) revert UnknownValidator(msg.sender);
        if (newCommission > COMMISSION_PRECISION) revert CommissionTooHigh(newCommission, COMMISSION_PRECISION);
        Meta storage m = _meta[msg.sender];
        _checkCommissionChange(m, newCommission, currentEpoch(), maxCommissionChangePerEpoch);
        uint256 old = m.commission;
        m.commission = uint64(newCommission);
        emit CommissionChanged(msg.sender, old, newCommission);
    }

    /// @notice Leave jail once `jailedUntil` is reached. A validator still in the validator set
    /// proposes again from the next block; one that is not rejoins at the next epoch boundary if its
    /// stake ranks it there.
    function unjail() external {
        Stats storage s = _stats[msg.sender];
        if (!s.registered) revert UnknownValidator(msg.sender);
        if (!s.jailed) revert NotJailed(msg.sender);
        uint256 until = _meta[msg.sender].jailedUntil;
        if (block.number < until) revert JailCooldownActive(until);
        s.jailed = false;
        s.missedInRow = 0;
        emit ValidatorUnjailed(msg.sender);
    }

    // ------------------------------------------------------------------ double-sign evidence

    /// @notice Evidence that one validator sealed two different blocks at one height on one parent.
    /// Each header is the RLP of a block header without its seal (extraData cut before its last 65
    /// bytes), whose keccak256 the seal signs; each seal is r ‖ s ‖ v (v 0/1 or 27/28). Anyone may
    /// submit it: the sealer is jailed for good and DOUBLE_SIGN_SLASH of its self-stake and of every
    /// delegation to it is slashed. One offence (validator, height) is slashed once. Two blocks on
    /// different parents prove nothing: a validator that reorganised to another branch seals again
    /// at heights it sealed on the branch it left.
    function slashDoubleSeal(bytes calldata headerA, bytes calldata sealA, bytes calldata headerB, bytes calldata sealB)
        external
    {
        bytes32 hashA = keccak256(headerA);
        bytes32 hashB = keccak256(headerB);
        if (hashA == hashB) revert InvalidEvidence("same block");
        (uint256 number, bytes32 parent) = _headerNumberAndParent(headerA);
        (uint256 numberB, bytes32 parentB) = _headerNumberAndParent(headerB);
        if (numberB != number) revert InvalidEvidence("different heights");
        if (parentB != parent) revert InvalidEvidence("different parents");
        address signer = _recover(hashA, sealA);
        if (signer != _recover(hashB, sealB)) revert InvalidEvidence("different signers");
        _slashDoubleSign(signer, number, 0);
    }

    /// @notice Evidence that one validator signed finality votes for two different blocks at one
    /// height (each vote signs keccak256(abi.encode(VOTE_TYPEHASH, block.chainid, number, hash))).
    /// Anyone may submit it; the consequences are those of slashDoubleSeal.
    function slashDoubleVote(
        uint256 number,
        bytes32 hashA,
        bytes calldata signatureA,
        bytes32 hashB,
        bytes calldata signatureB
    ) external {
        if (hashA == hashB) revert InvalidEvidence("same block");
        address signer = _recover(keccak256(abi.encode(VOTE_TYPEHASH, block.chainid, number, hashA)), signatureA);
        address other = _recover(keccak256(abi.encode(VOTE_TYPEHASH, block.chainid, number, hashB)), signatureB);
        if (signer != other) revert InvalidEvidence("different signers");
        _slashDoubleSign(signer, number, 1);
    }

    /// @notice True when the double-sign offence of `validator` at `blockNumber` has been slashed.
    function isOffenceSlashed(address validator, uint256 blockNumber) external view returns (bool) {
        return _offenceSlashed[keccak256(abi.encode(validator, blockNumber))];
    }

    // ------------------------------------------------------------------ system calls

    /// @notice Called by the node once per block: `proposer` produced this block; `missed` are the
    /// validators whose turn it was before `proposer` in this slot and that did not produce it.
    /// Addresses that are not registered validators are ignored.
    function recordSlot(address proposer, address[] calldata missed) external onlySystem {
        uint64 count = _slotCount;
        if (count != 0 && block.number <= _lastSlotBlock) revert SlotAlreadyRecorded(block.number);
        uint256 idx = count % uptimeWindow;
        if (count >= uptimeWindow) _evictSlot(idx);

        address counted;
        Stats memory s = _stats[proposer];
        if (s.registered) {
            ++s.blocksProposed;
            ++s.windowProposed;
            s.missedInRow = 0;
            _stats[proposer] = s;
            counted = proposer;
        }
        uint256 m;
        for (uint256 i; i < missed.length; ++i) {
            address a = missed[i];
            s = _stats[a];
            if (!s.registered) continue;
            ++s.blocksMissed;
            ++s.windowMissed;
            ++s.missedInRow;
            // Out of the rotation, not out of the set (see the contract comment).
            if (!s.jailed && s.missedInRow >= jailThreshold && !_isLastProposer(a)) {
                s.jailed = true;
                uint256 until = block.number + jailCooldown;
                _meta[a].jailedUntil = uint64(until);
                emit ValidatorJailed(a, until, s.missedInRow);
            }
            _stats[a] = s;
            _slotMissed[idx][m] = a;
            ++m;
        }
        _slotRing[idx] = uint256(uint160(counted)) | (block.number << 160) | (m << 224);
        _slotCount = count + 1;
        _lastSlotBlock = uint64(block.number);
        emit SlotRecorded(block.number, proposer, missed);
    }

    /// @notice Called by the node once per epoch, in the epoch's last block, with msg.value = the
    /// epoch's block rewards plus fees. Splits it over the validator set's unjailed members pro rata
    /// to total stake (the rounding remainder of that split goes to the first, highest-staked, of
    /// them; a jailed member earns nothing); within a
    /// validator the delegators' share, less commission, goes to its delegators pro rata to their
    /// amounts, and the rest (own-stake share plus commission) to the validator. Every wei of
    /// msg.value is credited. Then recomputes the active set for the next epoch.
    function distributeRewards() external payable onlySystem {
        uint256 epoch = currentEpoch();
        if (_distributedOnce && epoch <= _lastDistributedEpoch) revert EpochAlreadyDistributed(epoch);
        _distributedOnce = true;
        _lastDistributedEpoch = uint64(epoch);

        uint256 amount = msg.value + undistributedRewards;
        address[] memory set = _proposers();
        uint256 n = set.length;
        Stake[] memory stakes = new Stake[](n);
        uint256 total;
        for (uint256 i; i < n; ++i) {
            Stake memory st = _stake[set[i]];
            stakes[i] = st;
            total += uint256(st.self) + st.delegated;
        }
        if (amount != 0) {
            if (total == 0) {
                undistributedRewards = amount;
                emit RewardsDeferred(epoch, amount);
            } else {
                undistributedRewards = 0;
                uint256 assigned;
                uint256[] memory shares = new uint256[](n);
                for (uint256 i = 1; i < n; ++i) {
                    uint256 share = (amount * (uint256(stakes[i].self) + stakes[i].delegated)) / total;
                    shares[i] = share;
                    assigned += share;
                }
                shares[0] = amount - assigned;
                for (uint256 i; i < n; ++i) {
                    _credit(epoch, set[i], stakes[i], shares[i]);
                }
                totalRewardsDistributed += amount;
                emit RewardsDistributed(epoch, amount, n);
            }
        }
        _updateActiveSet(epoch + 1, maxValidators);
    }

    // ------------------------------------------------------------------ views

    function currentEpoch() public view returns (uint256) {
        return block.number / epochLength;
    }

    function nextEpochBlock() external view returns (uint256) {
        return (currentEpoch() + 1) * epochLength;
    }

    function config() external view returns (Config memory) {
        return Config(
            minSelfStake,
            maxValidators,
            epochLength,
            unbondingPeriod,
            maxCommissionChangePerEpoch,
            jailThreshold,
            jailCooldown,
            blockReward,
            uptimeWindow
        );
    }

    /// @notice Every validator ever registered, in registration order.
    function getValidators() external view returns (ValidatorInfo[] memory out) {
        uint256 n = _validatorList.length;
        out = new ValidatorInfo[](n);
        for (uint256 i; i < n; ++i) {
            out[i] = _info(_validatorList[i]);
        }
    }

    function getValidator(address validator) external view returns (ValidatorInfo memory) {
        if (!_stats[validator].registered) revert UnknownValidator(validator);
        return _info(validator);
    }

    function validatorCount() external view returns (uint256) {
        return _validatorList.length;
    }

    /// @notice How many validators are active: in the validator set and not jailed.
    function activeValidatorCount() external view returns (uint256) {
        return _proposers().length;
    }

    /// @notice The validators allowed to propose now (the validator set's unjailed members), ordered
    /// by stake (desc, ties by address) as of the last epoch boundary.
    function activeValidators() external view returns (address[] memory validators, uint256[] memory stakes) {
        validators = _proposers();
        stakes = _stakesOf(validators);
    }

    /// @notice The validator set as the node reads it for consensus: every member, ordered by stake
    /// (desc, ties by address) as of the last epoch boundary, with its total stake and whether it is
    /// jailed. All members vote for finality; the unjailed ones propose. Exited and double-signing
    /// validators leave it at once, validators jailed for missed slots stay until an epoch boundary
    /// ranks them out by stake.
    function validatorSet()
        external
        view
        returns (address[] memory validators, uint256[] memory stakes, bool[] memory jailed)
    {
        validators = _activeSet;
        stakes = _stakesOf(validators);
        jailed = new bool[](validators.length);
        for (uint256 i; i < validators.length; ++i) {
            jailed[i] = _stats[validators[i]].jailed;
        }
    }

    /// @notice True for every address that ever registered as a validator (any status).
    function isValidator(address account) external view returns (bool) {
        return _stats[account].registered;
    }

    /// @notice True for a validator in the validator set that is not jailed.
    function isActiveValidator(address account) external view returns (bool) {
        return _activeIndex[account] != 0 && !_stats[account].jailed;
    }

    /// @notice The `n` eligible validators (bonded, not jailed for good) with the most stake, desc,
    /// ties by address ascending: the set the next epoch boundary would select when n == maxValidators.
    function topValidators(uint256 n) external view returns (ValidatorInfo[] memory out) {
        (address[] memory top,) = _selectTop(n);
        out = new ValidatorInfo[](top.length);
        for (uint256 i; i < top.length; ++i) {
            out[i] = _info(top[i]);
        }
    }

    function getDelegations(address delegator) external view returns (DelegationInfo[] memory out) {
        address[] storage list = _delegatedTo[delegator];
        out = new DelegationInfo[](list.length);
        for (uint256 i; i < list.length; ++i) {
            address v = list[i];
            Delegation storage d = _delegations[v][delegator];
            out[i] = DelegationInfo(
                v, d.amount, (uint256(d.amount) * (_pool[v].accRewardPerShare - d.accSnapshot)) / REWARD_PRECISION
            );
        }
    }

    function getDelegation(address delegator, address validator) external view returns (uint256) {
        return _delegations[validator][delegator].amount;
    }

    function getUnbonding(address account) external view returns (UnbondingInfo[] memory out) {
        UnbondingEntry[] storage queue = _unbonding[account];
        out = new UnbondingInfo[](queue.length);
        for (uint256 i; i < queue.length; ++i) {
            UnbondingEntry memory e = queue[i];
            out[i] = UnbondingInfo(e.validator, e.amount, e.completionBlock);
        }
    }

    /// @notice Claimable rewards of `account` in wei (own validator rewards plus all delegations).
    function pendingRewards(address account) external view returns (uint256) {
        (uint256 amount,) = pendingRewardsPrecise(account);
        return amount;
    }

    /// @notice Pending rewards as whole wei plus the sub-wei fraction (in 1 / REWARD_PRECISION wei)
    /// that the account keeps accumulating. Used to audit that distributions are exact.
    function pendingRewardsPrecise(address account) public view returns (uint256 amount, uint256 fraction) {
        uint256 scaled = _residue[account];
        address[] storage list = _delegatedTo[account];
        for (uint256 i; i < list.length; ++i) {
            address v = list[i];
            Delegation storage d = _delegations[v][account];
            scaled += uint256(d.amount) * (_pool[v].accRewardPerShare - d.accSnapshot);
        }
        amount = _accrued[account] + scaled / REWARD_PRECISION;
        fraction = scaled % REWARD_PRECISION;
    }

    /// @notice Part of the delegator rewards of `validator` not yet spread over its delegators, in
    /// 1 / REWARD_PRECISION wei (always below the delegated stake in that unit, so below one wei for
    /// any delegated stake under 1e36 wei). It is added to the next distribution to those delegators.
    function rewardCarry(address validator) external view returns (uint256) {
        return _pool[validator].carry;
    }

    /// @notice Proposed and assigned (proposed + missed) slots of `validator` among the last
    /// uptimeWindow recorded slots. Uptime = proposed / assigned.
    function uptime(address validator) external view returns (uint256 proposed, uint256 assigned) {
        Stats memory s = _stats[validator];
        return (s.windowProposed, uint256(s.windowProposed) + s.windowMissed);
    }

    /// @notice Number of slots recorded so far (one per block since the first recordSlot).
    function slotCount() external view returns (uint256) {
        return _slotCount;
    }

    /// @notice The last `count` recorded slots (at most uptimeWindow), oldest first. Unregistered
    /// proposers appear as the zero address; unregistered missed addresses are omitted.
    function recentSlots(uint256 count) external view returns (SlotInfo[] memory out) {
        uint256 total = _slotCount;
        if (count > total) count = total;
        if (count > uptimeWindow) count = uptimeWindow;
        out = new SlotInfo[](count);
        for (uint256 k; k < count; ++k) {
            uint256 idx = (total - count + k) % uptimeWindow;
            uint256 word = _slotRing[idx];
            uint256 m = word >> 224;
            address[] memory missed = new address[](m);
            for (uint256 j; j < m; ++j) {
                missed[j] = _slotMissed[idx][j];
            }
            out[k] = SlotInfo(uint64(word >> 160), address(uint160(word)), missed);
        }
    }

    // ------------------------------------------------------------------ internals

    function _slashDoubleSign(address validator, uint256 number, uint8 kind) private {
        Stats storage s = _stats[validator];
        if (!s.registered) revert UnknownValidator(validator);
        bytes32 offence = keccak256(abi.encode(validator, number));
        if (_offenceSlashed[offence]) revert OffenceAlreadySlashed(validator, number);
        _offenceSlashed[offence] = true;

        Stake memory st = _stake[validator];
        uint256 selfCut = (uint256(st.self) * DOUBLE_SIGN_SLASH) / COMMISSION_PRECISION;
        st.self -= uint128(selfCut);
        uint256 delegatedCut;
        address[] storage delegators = _delegators[validator];
        for (uint256 i; i < delegators.length; ++i) {
            address delegator = delegators[i];
            Delegation storage d = _delegations[validator][delegator];
            // Rewards earned before the offence are settled on the stake that earned them.
            _settle(validator, delegator, d);
            uint256 cut = (uint256(d.amount) * DOUBLE_SIGN_SLASH) / COMMISSION_PRECISION;
            d.amount -= uint128(cut);
            delegatedCut += cut;
        }
        st.delegated -= uint128(delegatedCut);
        _stake[validator] = st;
        uint256 amount = selfCut + delegatedCut;
        totalStaked -= amount;
        totalSlashed += amount;

        // Jailed for good: unjail() never succeeds again. The chain keeps its last proposer.
        s.jailed = true;
        _meta[validator].jailedUntil = type(uint64).max;
        if (!_isLastProposer(validator)) _removeActive(validator);
        emit ValidatorSlashed(validator, number, kind, amount, msg.sender);
        emit ValidatorJailed(validator, type(uint64).max, s.missedInRow);
    }

    /// @dev The signer of `digest`, from a 65-byte r ‖ s ‖ v signature (v 0/1 or 27/28).
    function _recover(bytes32 digest, bytes calldata signature) private pure returns (address signer) {
        if (signature.length != 65) revert InvalidEvidence("signature length");
        bytes32 r = bytes32(signature[0:32]);
        bytes32 sv = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (v < 27) v += 27;
        if (v != 27 && v != 28) revert InvalidEvidence("signature v");
        signer = ecrecover(digest, v, r, sv);
        if (signer == address(0)) revert InvalidEvidence("signature");
    }

    /// @dev The `number` (index 8) and `parentHash` (index 0) fields of an RLP-encoded block header.
    function _headerNumberAndParent(bytes calldata header) private pure returns (uint256 number, bytes32 parent) {
        (uint256 p, uint256 len, bool isList) = _rlpItem(header, 0);
        if (!isList || p + len != header.length) revert InvalidEvidence("header is not one RLP list");
        (uint256 parentAt, uint256 parentLen, bool parentNested) = _rlpItem(header, p);
        if (parentNested || parentLen != 32) revert InvalidEvidence("header parent hash");
        parent = bytes32(header[parentAt:parentAt + 32]);
        for (uint256 i; i < 8; ++i) {
            (uint256 start, uint256 size,) = _rlpItem(header, p);
            p = start + size;
        }
        (uint256 at, uint256 n, bool nested) = _rlpItem(header, p);
        if (nested || n > 8) revert InvalidEvidence("header number");
        for (uint256 i; i < n; ++i) {
            number = (number << 8) | uint8(header[at + i]);
        }
    }

    /// @dev Payload offset and length of the RLP item at `p`, and whether it is a list.
    function _rlpItem(bytes calldata data, uint256 p) private pure returns (uint256 start, uint256 len, bool isList) {
        if (p >= data.length) revert InvalidEvidence("header rlp");
        uint256 b = uint8(data[p]);
        if (b < 0x80) return (p, 1, false);
        if (b < 0xb8) {
            (start, len) = (p + 1, b - 0x80);
        } else if (b < 0xc0) {
            (start, len) = (p + 1 + (b - 0xb7), _rlpLength(data, p + 1, b - 0xb7));
        } else if (b < 0xf8) {
            (start, len, isList) = (p + 1, b - 0xc0, true);
        } else {
            (start, len, isList) = (p + 1 + (b - 0xf7), _rlpLength(data, p + 1, b - 0xf7), true);
        }
        if (start + len > data.length) revert InvalidEvidence("header rlp");
    }

    function _rlpLength(bytes calldata data, uint256 p, uint256 bytesOfLength) private pure returns (uint256 len) {
        if (bytesOfLength > 4 || p + bytesOfLength > data.length) revert InvalidEvidence("header rlp");
        for (uint256 i; i < bytesOfLength; ++i) {
            len = (len << 8) | uint8(data[p + i]);
        }
    }

    function _register(
        address validator,
        uint256 commission,
        uint256 amount,
        uint256 minimum,
        uint256 epoch,
        uint256 maxChange
    ) private {
        if (commission > COMMISSION_PRECISION) revert CommissionTooHigh(commission, COMMISSION_PRECISION);
        if (amount < minimum || amount == 0) revert StakeBelowMinimum(amount, minimum);
        Stats storage s = _stats[validator];
        Stake memory st = _stake[validator];
        Meta storage m = _meta[validator];
        if (s.registered) {
            if (st.self != 0) revert AlreadyRegistered(validator);
            _checkCommissionChange(m, commission, epoch, maxChange);
        } else {
            s.registered = true;
            _validatorList.push(validator);
            m.registeredAt = uint64(block.number);
            m.commissionBase = uint64(commission);
            m.commissionEpoch = uint64(epoch);
        }
        if (_candidates.length >= MAX_CANDIDATES) revert TooManyValidators(MAX_CANDIDATES);
        _candidates.push(validator);
        _candidateIndex[validator] = _candidates.length;

        m.commission = uint64(commission);
        m.unbondingUntil = 0;
        st.self = _u128(amount);
        _stake[validator] = st;
        totalStaked += amount;
        emit ValidatorRegistered(validator, amount, commission);
    }

    /// @dev Within an epoch, the commission stays within `maxChange` of its value when the epoch's
    /// first change was made.
    function _checkCommissionChange(Meta storage m, uint256 newCommission, uint256 epoch, uint256 maxChange)
        private
    {
        if (m.commissionEpoch != epoch) {
            m.commissionBase = m.commission;
            m.commissionEpoch = uint64(epoch);
        }
        uint256 base = m.commissionBase;
        uint256 diff = newCommission > base ? newCommission - base : base - newCommission;
        if (diff > maxChange) revert CommissionChangeTooLarge(base, newCommission, maxChange);
    }

    function _bondedValidatorStake(address validator) private view returns (Stake memory st) {
        if (!_stats[validator].registered) revert UnknownValidator(validator);
        st = _stake[validator];
        if (st.self == 0) revert ValidatorNotBonded(validator);
    }

    function _settle(address validator, address delegator, Delegation storage d) private {
        uint256 acc = _pool[validator].accRewardPerShare;
        uint256 snap = d.accSnapshot;
        if (acc == snap) return;
        uint256 amount = d.amount;
        if (amount != 0) {
            uint256 scaled = amount * (acc - snap) + _residue[delegator];
            _accrued[delegator] += scaled / REWARD_PRECISION;
            _residue[delegator] = scaled % REWARD_PRECISION;
        }
        d.accSnapshot = acc;
    }

    function _credit(uint256 epoch, address validator, Stake memory st, uint256 share) private {
        uint256 toDelegators;
        if (st.delegated != 0 && share != 0) {
            uint256 gross = (share * st.delegated) / (uint256(st.self) + st.delegated);
            uint256 cut = (gross * _meta[validator].commission) / COMMISSION_PRECISION;
            toDelegators = gross - cut;
            if (toDelegators != 0) {
                Pool storage pool = _pool[validator];
                uint256 num = toDelegators * REWARD_PRECISION + pool.carry;
                pool.accRewardPerShare += num / st.delegated;
                pool.carry = num % st.delegated;
            }
        }
        uint256 toValidator = share - toDelegators;
        if (toValidator != 0) _accrued[validator] += toValidator;
        emit ValidatorRewarded(epoch, validator, toValidator, toDelegators);
    }

    function _payRewards() private {
        uint256 amount = _accrued[msg.sender];
        if (amount == 0) revert NoRewards();
        _accrued[msg.sender] = 0;
        totalRewardsClaimed += amount;
        emit RewardsClaimed(msg.sender, amount);
        _pay(msg.sender, amount);
    }

    function _pay(address to, uint256 amount) private {
        (bool ok,) = to.call{value: amount}("");
        if (!ok) revert TransferFailed(to, amount);
    }

    function _u128(uint256 x) private pure returns (uint128) {
        if (x > type(uint128).max) revert AmountTooLarge(x);
        return uint128(x);
    }

    function _evictSlot(uint256 idx) private {
        uint256 word = _slotRing[idx];
        address p = address(uint160(word));
        if (p != address(0)) --_stats[p].windowProposed;
        uint256 m = word >> 224;
        for (uint256 i; i < m; ++i) {
            --_stats[_slotMissed[idx][i]].windowMissed;
        }
    }

    /// @dev True when `a` is the only unjailed member of the validator set: jailing it would leave
    /// nobody to propose.
    function _isLastProposer(address a) private view returns (bool) {
        if (_activeIndex[a] == 0) return false;
        uint256 len = _activeSet.length;
        for (uint256 i; i < len; ++i) {
            address other = _activeSet[i];
            if (other != a && !_stats[other].jailed) return false;
        }
        return true;
    }

    /// @dev The validator set's unjailed members, in set order.
    function _proposers() private view returns (address[] memory out) {
        uint256 len = _activeSet.length;
        out = new address[](len);
        uint256 n;
        for (uint256 i; i < len; ++i) {
            address a = _activeSet[i];
            if (!_stats[a].jailed) out[n++] = a;
        }
        assembly ("memory-safe") {
            mstore(out, n)
        }
    }

    function _stakesOf(address[] memory validators) private view returns (uint256[] memory stakes) {
        stakes = new uint256[](validators.length);
        for (uint256 i; i < validators.length; ++i) {
            Stake memory st = _stake[validators[i]];
            stakes[i] = uint256(st.self) + st.delegated;
        }
    }

    function _addDelegatedTo(address delegator, address validator) private {
        _delegatedTo[delegator].push(validator);
        _delegatedToIndex[delegator][validator] = _delegatedTo[delegator].length;
        address[] storage delegators = _delegators[validator];
        if (delegators.length >= MAX_DELEGATORS) revert TooManyDelegators(MAX_DELEGATORS);
        delegators.push(delegator);
        _delegatorIndex[validator][delegator] = delegators.length;
    }

    function _removeDelegatedTo(address delegator, address validator) private {
        address[] storage list = _delegatedTo[delegator];
        uint256 idx = _delegatedToIndex[delegator][validator];
        uint256 last = list.length;
        if (idx != last) {
            address moved = list[last - 1];
            list[idx - 1] = moved;
            _delegatedToIndex[delegator][moved] = idx;
        }
        list.pop();
        delete _delegatedToIndex[delegator][validator];

        address[] storage delegators = _delegators[validator];
        uint256 at = _delegatorIndex[validator][delegator];
        uint256 count = delegators.length;
        if (at != count) {
            address moved = delegators[count - 1];
            delegators[at - 1] = moved;
            _delegatorIndex[validator][moved] = at;
        }
        delegators.pop();
        delete _delegatorIndex[validator][delegator];
    }

    function _removeCandidate(address validator) private {
        uint256 idx = _candidateIndex[validator];
        if (idx == 0) return;
        uint256 last = _candidates.length;
        if (idx != last) {
            address moved = _candidates[last - 1];
            _candidates[idx - 1] = moved;
            _candidateIndex[moved] = idx;
        }
        _candidates.pop();
        delete _candidateIndex[validator];
    }

    /// @dev Keeps the remaining members in order.
    function _removeActive(address validator) private {
        uint256 idx = _activeIndex[validator];
        if (idx == 0) return;
        uint256 len = _activeSet.length;
        for (uint256 i = idx; i < len; ++i) {
            address moved = _activeSet[i];
            _activeSet[i - 1] = moved;
            _activeIndex[moved] = i;
        }
        _activeSet.pop();
        delete _activeIndex[validator];
    }

    function _selectTop(uint256 n) private view returns (address[] memory out, uint256[] memory outStakes) {
        uint256 len = _candidates.length;
        if (n > len) n = len;
        out = new address[](n);
        outStakes = new uint256[](n);
        uint256 size;
        if (n == 0) return (out, outStakes);
        for (uint256 i; i < len; ++i) {
            address a = _candidates[i];
            // Jailed for missed slots keeps a validator eligible; jailed for good does not.
            if (_stats[a].jailed && _meta[a].jailedUntil == type(uint64).max) continue;
            Stake memory st = _stake[a];
            uint256 s = uint256(st.self) + st.delegated;
            // insertion into the sorted prefix [0, size): indices stay below n <= out.length
            unchecked {
                uint256 pos = size;
                while (pos > 0) {
                    uint256 t = outStakes[pos - 1];
                    if (s < t || (s == t && a > out[pos - 1])) break;
                    --pos;
                }
                if (pos >= n) continue;
                uint256 end = size < n ? size : n - 1;
                for (uint256 j = end; j > pos; --j) {
                    out[j] = out[j - 1];
                    outStakes[j] = outStakes[j - 1];
                }
                out[pos] = a;
                outStakes[pos] = s;
                if (size < n) ++size;
            }
        }
        assembly ("memory-safe") {
            mstore(out, size)
            mstore(outStakes, size)
        }
    }

    function _updateActiveSet(uint256 epoch, uint256 n) private {
        (address[] memory top,) = _selectTop(n);
        uint256 oldLen = _activeSet.length;
        for (uint256 i; i < oldLen; ++i) {
            address a = _activeSet[i];
            bool kept;
            for (uint256 j; j < top.length; ++j) {
                if (top[j] == a) {
                    kept = true;
                    break;
                }
            }
            if (!kept) delete _activeIndex[a];
        }
        for (uint256 i; i < top.length; ++i) {
            address a = top[i];
            if (i < oldLen) {
                if (_activeSet[i] != a) _activeSet[i] = a;
            } else {
                _activeSet.push(a);
            }
            if (_activeIndex[a] != i + 1) _activeIndex[a] = i + 1;
        }
        for (uint256 i = oldLen; i > top.length; --i) {
            _activeSet.pop();
        }
        emit ActiveSetUpdated(epoch, top);
    }

    function _info(address a) private view returns (ValidatorInfo memory info) {
        Stake memory st = _stake[a];
        Stats memory s = _stats[a];
        Meta memory m = _meta[a];
        info.validator = a;
        info.selfStake = st.self;
        info.delegatedStake = st.delegated;
        info.totalStake = uint256(st.self) + st.delegated;
        info.commission = m.commission;
        if (s.jailed) {
            info.status = ValidatorStatus.Jailed;
        } else if (_activeIndex[a] != 0) {
            info.status = ValidatorStatus.Active;
        } else if (st.self == 0 && block.number < m.unbondingUntil) {
            info.status = ValidatorStatus.Unbonding;
        } else {
            info.status = ValidatorStatus.Inactive;
        }
        info.blocksProposed = s.blocksProposed;
        info.blocksMissed = s.blocksMissed;
        info.windowProposed = s.windowProposed;
        info.windowMissed = s.windowMissed;
        info.missedInRow = s.missedInRow;
        info.jailed = s.jailed;
        info.jailedUntil = m.jailedUntil;
        info.registeredAt = m.registeredAt;
        info.unbondingUntil = m.unbondingUntil;
    }
}
