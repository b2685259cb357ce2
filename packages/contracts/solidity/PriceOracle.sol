// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

interface IValidatorSet {
    function isActiveValidator(address account) external view returns (bool);
}

/// @title Strata price oracle: per-asset rounds with Chainlink-compatible reads.
/// @notice Predeployed at 0x0000000000000000000000000000000000003000.
///
/// Prices have 8 decimals. Every report carries its observation time `observedAt` (unix seconds,
/// the reporter's clock), independent of block time. Observation time is cut into intervals of
/// `roundInterval` seconds; each asset has at most one round per interval, round ids count up from 1.
///  - A report whose interval is the open round's interval joins that round (a reporter that reports
///    again in the same round replaces its earlier report). The round's answer is the median of its
///    reports (the mean of the two middle reports, rounded down, when their number is even).
///  - A report for a later interval closes the open round and opens the next one. If the closed
///    round never reached `quorum` reports it is discarded and its round id reused.
///  - A report for an earlier interval, or for the interval of a closed round, reverts.
///  - A round is answered (visible to reads) as soon as it has `quorum` reports, so with the
///    default quorum of 1 the open round's running median is the latest answer.
///  - `submitBatch` seeds history: each entry becomes its own closed, answered round with that
///    single report; entries must be in strictly increasing intervals.
/// Reporters: the admin-managed allow-list, plus the active validators of the Staking contract
/// when one is configured.
contract PriceOracle {
    uint8 public constant decimals = 8;
    uint256 public constant version = 1;
    uint256 public constant MAX_REPORTS_PER_ROUND = 64;
    /// @notice How far an observation time may lie ahead of the block time.
    uint256 public constant MAX_FUTURE_DRIFT = 1 hours;
    uint256 public constant MAX_ASSET_LENGTH = 32;

    struct Config {
        address admin;
        address staking;
        uint256 roundInterval;
        uint256 stalenessThreshold;
        uint256 quorum;
        string[] assets;
        string[] descriptions;
        address[] reporters;
    }

    struct RoundData {
        uint80 roundId;
        int256 answer;
        uint256 startedAt;
        uint256 updatedAt;
        uint80 answeredInRound;
    }

    struct Round {
        int128 answer;
        uint48 startedAt;
        uint48 updatedAt;
        uint32 reportCount;
    }

    struct Report {
        address reporter;
        int96 price;
    }

    struct Feed {
        bool exists;
        bool open;
        uint64 latestRoundId;
        uint64 answeredRoundId;
        uint64 lastBucket;
    }

    address public immutable staking;
    uint256 public immutable roundInterval;
    uint256 public immutable stalenessThreshold;
    uint256 public immutable quorum;
    address public admin;

    mapping(bytes32 => Feed) private _feeds;
    mapping(bytes32 => string) private _descriptions;
    mapping(bytes32 => mapping(uint256 => Round)) private _rounds;
    mapping(bytes32 => mapping(uint256 => Report[])) private _reports;
    string[] private _assets;
    mapping(address => bool) private _allowed;
    address[] private _reporterList;
    mapping(address => uint256) private _reporterIndex; // 1-based

    event AssetAdded(bytes32 indexed assetKey, string asset, string description);
    event ReporterAdded(address indexed reporter);
    event ReporterRemoved(address indexed reporter);
    event AdminChanged(address indexed previousAdmin, address indexed newAdmin);
    event NewRound(bytes32 indexed assetKey, uint256 indexed roundId, address indexed startedBy, uint256 startedAt);
    event ReportSubmitted(
        bytes32 indexed assetKey, uint256 indexed roundId, address indexed reporter, int256 price, uint256 observedAt
    );
    event AnswerUpdated(
        bytes32 indexed assetKey, uint256 indexed roundId, int256 answer, uint256 updatedAt, uint256 reportCount
    );
    event RoundsSeeded(
        bytes32 indexed assetKey, address indexed reporter, uint256 fromRoundId, uint256 toRoundId, uint256 updatedAt
    );

    error InvalidConfig(string field);
    error NotAdmin(address caller);
    error NotReporter(address caller);
    error UnknownAsset(string asset);
    error AssetExists(string asset);
    error InvalidAsset(string asset);
    error InvalidPrice(int256 price);
    error FutureObservation(uint256 observedAt, uint256 blockTimestamp);
    error ObservationTooOld(uint256 observedAt, uint256 earliestAccepted);
    error TooManyReports(uint256 maximum);
    error LengthMismatch(uint256 prices, uint256 timestamps);
    error EmptyBatch();
    error NoDataPresent(string asset);
    error RoundNotFound(string asset, uint256 roundId);
    error ReporterExists(address reporter);
    error UnknownReporter(address reporter);

    modifier onlyAdmin() {
        if (msg.sender != admin) revert NotAdmin(msg.sender);
        _;
    }

    modifier onlyReporter() {
        if (!isReporter(msg.sender)) revert NotReporter(msg.sender);
        _;
    }

    constructor(Config memory cfg) {
        if (cfg.roundInterval == 0) revert InvalidConfig("roundInterval");
        if (cfg.quorum == 0 || cfg.quorum > MAX_REPORTS_PER_ROUND) revert InvalidConfig("quorum");
        if (cfg.descriptions.length != cfg.assets.length) revert InvalidConfig("descriptions");
        staking = cfg.staking;
        roundInterval = cfg.roundInterval;
        stalenessThreshold = cfg.stalenessThreshold;
        quorum = cfg.quorum;
        admin = cfg.admin;
        emit AdminChanged(address(0), cfg.admin);
        for (uint256 i; i < cfg.assets.length; ++i) {
            _addAsset(cfg.assets[i], cfg.descriptions[i]);
        }
        for (uint256 i; i < cfg.reporters.length; ++i) {
            _addReporter(cfg.reporters[i]);
        }
    }

    // ------------------------------------------------------------------ administration

    function addAsset(string calldata asset, string calldata description_) external onlyAdmin {
        _addAsset(asset, description_);
    }

    function addReporter(address reporter) external onlyAdmin {
        _addReporter(reporter);
    }

    function removeReporter(address reporter) external onlyAdmin {
        uint256 idx = _reporterIndex[reporter];
        if (idx == 0) revert UnknownReporter(reporter);
        uint256 last = _reporterList.length;
        if (idx != last) {
            address moved = _reporterList[last - 1];
            _reporterList[idx - 1] = moved;
            _reporterIndex[moved] = idx;
        }
        _reporterList.pop();
        delete _reporterIndex[reporter];
        _allowed[reporter] = false;
        emit ReporterRemoved(reporter);
    }

    function setAdmin(address newAdmin) external onlyAdmin {
        emit AdminChanged(admin, newAdmin);
        admin = newAdmin;
    }

    // ------------------------------------------------------------------ reporting

    /// @notice Report `price` (8 decimals, > 0) of `asset` as observed at unix time `observedAt`.
    function submit(string calldata asset, int256 price, uint64 observedAt) external onlyReporter {
        bytes32 key = _key(asset);
        Feed memory f = _feeds[key];
        if (!f.exists) revert UnknownAsset(asset);
        int96 p = _checkReport(price, observedAt);
        uint256 bucket = observedAt / roundInterval;

        uint256 roundId;
        if (f.open && bucket == f.lastBucket) {
            roundId = f.latestRoundId;
        } else if (f.latestRoundId == 0 || bucket > f.lastBucket) {
            roundId = _openSlot(key, f);
            f.latestRoundId = uint64(roundId);
            f.lastBucket = uint64(bucket);
            f.open = true;
            _rounds[key][roundId] = Round(0, uint48(observedAt), uint48(observedAt), 0);
            emit NewRound(key, roundId, msg.sender, observedAt);
        } else {
            uint256 earliest = (f.open ? f.lastBucket : f.lastBucket + 1) * roundInterval;
            revert ObservationTooOld(observedAt, earliest);
        }

        Report[] storage reports = _reports[key][roundId];
        uint256 len = reports.length;
        uint256 slot = len;
        for (uint256 i; i < len; ++i) {
            if (reports[i].reporter == msg.sender) {
                slot = i;
                break;
            }
        }
        if (slot == len) {
            if (len >= MAX_REPORTS_PER_ROUND) revert TooManyReports(MAX_REPORTS_PER_ROUND);
            reports.push(Report(msg.sender, p));
            ++len;
        } else {
            reports[slot].price = p;
        }

        Round memory r = _rounds[key][roundId];
        r.answer = _median(reports, len);
        r.reportCount = uint32(len);
        if (observedAt < r.startedAt) r.startedAt = uint48(observedAt);
        if (observedAt > r.updatedAt) r.updatedAt = uint48(observedAt);
        _rounds[key][roundId] = r;
        if (len >= quorum) f.answeredRoundId = uint64(roundId);
        _feeds[key] = f;

        emit ReportSubmitted(key, roundId, msg.sender, price, observedAt);
        if (len >= quorum) emit AnswerUpdated(key, roundId, r.answer, r.updatedAt, len);
    }

    /// @notice Seed history: each (prices[i], timestamps[i]) becomes its own closed round.
    /// Timestamps must fall in strictly increasing intervals, after every existing round.
    function submitBatch(string calldata asset, int256[] calldata prices, uint64[] calldata timestamps)
        external
        onlyReporter
    {
        if (prices.length != timestamps.length) revert LengthMismatch(prices.length, timestamps.length);
        if (prices.length == 0) revert EmptyBatch();
        bytes32 key = _key(asset);
        Feed memory f = _feeds[key];
        if (!f.exists) revert UnknownAsset(asset);

        uint256 first = _openSlot(key, f);
        uint256 roundId = first;
        bool any = f.latestRoundId != 0;
        uint256 last = f.lastBucket;
        mapping(uint256 => Round) storage rounds = _rounds[key];
        for (uint256 i; i < prices.length; ++i) {
            uint64 t = timestamps[i];
            int96 p = _checkReport(prices[i], t);
            uint256 bucket = t / roundInterval;
            if (any && bucket <= last) revert ObservationTooOld(t, (last + 1) * roundInterval);
            any = true;
            last = bucket;
            rounds[roundId] = Round(p, uint48(t), uint48(t), 1);
            ++roundId;
        }
        --roundId;
        f.latestRoundId = uint64(roundId);
        f.answeredRoundId = uint64(roundId);
        f.lastBucket = uint64(last);
        f.open = false;
        _feeds[key] = f;
        emit RoundsSeeded(key, msg.sender, first, roundId, timestamps[timestamps.length - 1]);
        emit AnswerUpdated(key, roundId, prices[prices.length - 1], timestamps[timestamps.length - 1], 1);
    }

    // ------------------------------------------------------------------ reads (Chainlink-compatible per asset)

    function latestRoundData(string calldata asset)
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        bytes32 key = _key(asset);
        Feed memory f = _feeds[key];
        if (!f.exists) revert UnknownAsset(asset);
        if (f.answeredRoundId == 0) revert NoDataPresent(asset);
        RoundData memory d = _roundData(key, f.answeredRoundId);
        return (d.roundId, d.answer, d.startedAt, d.updatedAt, d.answeredInRound);
    }

    function getRoundData(string calldata asset, uint80 roundId)
        external
        view
        returns (uint80, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        bytes32 key = _key(asset);
        Feed memory f = _feeds[key];
        if (!f.exists) revert UnknownAsset(asset);
        if (roundId == 0 || roundId > f.answeredRoundId) revert RoundNotFound(asset, roundId);
        RoundData memory d = _roundData(key, roundId);
        return (d.roundId, d.answer, d.startedAt, d.updatedAt, d.answeredInRound);
    }

    /// @notice Up to `count` answered rounds starting at `fromRoundId` (0 is read as 1), in order.
    function getRounds(string calldata asset, uint256 fromRoundId, uint256 count)
        external
        view
        returns (RoundData[] memory out)
    {
        bytes32 key = _key(asset);
        Feed memory f = _feeds[key];
        if (!f.exists) revert UnknownAsset(asset);
        if (fromRoundId == 0) fromRoundId = 1;
        uint256 latest = f.answeredRoundId;
        if (fromRoundId > latest) return new RoundData[](0);
        if (count > latest - fromRoundId + 1) count = latest - fromRoundId + 1;
        out = new RoundData[](count);
        for (uint256 i; i < count; ++i) {
            out[i] = _roundData(key, fromRoundId + i);
        }
    }

    /// @notice The reports of a live round (empty for rounds seeded by submitBatch).
    function getRoundReports(string calldata asset, uint256 roundId)
        external
        view
        returns (address[] memory reporterList, int256[] memory prices)
    {
        bytes32 key = _key(asset);
        if (!_feeds[key].exists) revert UnknownAsset(asset);
        Report[] storage reports = _reports[key][roundId];
        reporterList = new address[](reports.length);
        prices = new int256[](reports.length);
        for (uint256 i; i < reports.length; ++i) {
            reporterList[i] = reports[i].reporter;
            prices[i] = reports[i].price;
        }
    }

    /// @notice Latest answered round id (0 when none); the open round may be newer while below quorum.
    function latestRoundId(string calldata asset) external view returns (uint256) {
        Feed memory f = _feeds[_key(asset)];
        if (!f.exists) revert UnknownAsset(asset);
        return f.answeredRoundId;
    }

    function description(string calldata asset) external view returns (string memory) {
        bytes32 key = _key(asset);
        if (!_feeds[key].exists) revert UnknownAsset(asset);
        return _descriptions[key];
    }

    /// @notice True when the asset has no answer yet, or its latest answer was observed more than
    /// `stalenessThreshold` seconds before the current block's timestamp.
    function isStale(string calldata asset) external view returns (bool) {
        bytes32 key = _key(asset);
        Feed memory f = _feeds[key];
        if (!f.exists) revert UnknownAsset(asset);
        if (f.answeredRoundId == 0) return true;
        uint256 updatedAt = _rounds[key][f.answeredRoundId].updatedAt;
        return block.timestamp > updatedAt + stalenessThreshold;
    }

    function assets() external view returns (string[] memory) {
        return _assets;
    }

    function hasAsset(string calldata asset) external view returns (bool) {
        return _feeds[_key(asset)].exists;
    }

    /// @notice The admin-managed allow-list (validators are not listed here).
    function reporters() external view returns (address[] memory) {
        return _reporterList;
    }

    function isReporter(address account) public view returns (bool) {
        if (_allowed[account]) return true;
        if (staking == address(0)) return false;
        // A low-level call so that a staking address without code, a revert or malformed return
        // data all mean "not a validator" instead of reverting.
        (bool ok, bytes memory ret) =
            staking.staticcall(abi.encodeCall(IValidatorSet.isActiveValidator, (account)));
        return ok && ret.length == 32 && uint256(bytes32(ret)) == 1;
    }

    function assetKey(string calldata asset) external pure returns (bytes32) {
        return _key(asset);
    }

    // ------------------------------------------------------------------ internals

    function _key(string calldata asset) private pure returns (bytes32) {
        return keccak256(bytes(asset));
    }

    function _addAsset(string memory asset, string memory description_) private {
        uint256 len = bytes(asset).length;
        if (len == 0 || len > MAX_ASSET_LENGTH) revert InvalidAsset(asset);
        bytes32 key = keccak256(bytes(asset));
        if (_feeds[key].exists) revert AssetExists(asset);
        _feeds[key].exists = true;
        _descriptions[key] = description_;
        _assets.push(asset);
        emit AssetAdded(key, asset, description_);
    }

    function _addReporter(address reporter) private {
        if (_reporterIndex[reporter] != 0) revert ReporterExists(reporter);
        _reporterList.push(reporter);
        _reporterIndex[reporter] = _reporterList.length;
        _allowed[reporter] = true;
        emit ReporterAdded(reporter);
    }

    function _checkReport(int256 price, uint64 observedAt) private view returns (int96) {
        if (price <= 0 || price > type(int96).max) revert InvalidPrice(price);
        if (observedAt > block.timestamp + MAX_FUTURE_DRIFT) revert FutureObservation(observedAt, block.timestamp);
        return int96(price);
    }

    /// @dev Round id for a new round: the next id, or the open round's id when that round is
    /// discarded for missing quorum (its reports are cleared).
    function _openSlot(bytes32 key, Feed memory f) private returns (uint256) {
        uint256 latest = f.latestRoundId;
        if (f.open && latest > f.answeredRoundId) {
            delete _reports[key][latest];
            return latest;
        }
        return latest + 1;
    }

    function _roundData(bytes32 key, uint256 roundId) private view returns (RoundData memory) {
        Round memory r = _rounds[key][roundId];
        return RoundData(uint80(roundId), r.answer, r.startedAt, r.updatedAt, uint80(roundId));
    }

    function _median(Report[] storage reports, uint256 len) private view returns (int128) {
        int256[] memory v = new int256[](len);
        for (uint256 i; i < len; ++i) {
            int256 x = reports[i].price;
            uint256 j = i;
            while (j > 0 && v[j - 1] > x) {
                v[j] = v[j - 1];
                --j;
            }
            v[j] = x;
        }
        uint256 mid = len / 2;
        if (len % 2 == 1) return int128(v[mid]);
        int256 a = v[mid - 1];
        int256 b = v[mid];
        return int128((a & b) + ((a ^ b) >> 1));
    }
}
