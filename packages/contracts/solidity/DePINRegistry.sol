// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title Strata DePIN registry: bonded physical-infrastructure nodes and their heartbeats.
/// @notice Predeployed at 0x0000000000000000000000000000000000002000.
///
/// Uptime. Block numbers are cut into buckets of `heartbeatInterval` blocks (bucket = block /
/// heartbeatInterval); a node is expected to send at least one heartbeat per bucket. The uptime
/// window is the last K = heartbeatWindow / heartbeatInterval buckets ending with the current bucket
/// (for a deregistered node: ending with its deregistration bucket), starting no earlier than the
/// registration bucket.
///   seen     = buckets in the window holding at least one heartbeat
///   expected = buckets in the window, not counting the last one while it has no heartbeat yet
///              (it is still open)
///   uptime   = seen / expected (reported in basis points; 0 when expected == 0)
/// The contract keeps the last 32 distinct heartbeat buckets per node, so K is at most 32.
/// A node is active while registered and its last heartbeat is at most `heartbeatWindow` blocks old.
contract DePINRegistry {
    uint256 public constant MAX_WINDOW_BUCKETS = 32;
    uint256 public constant MAX_REGION_LENGTH = 64;
    uint256 public constant MAX_ENDPOINT_LENGTH = 256;
    uint256 public constant BPS = 10_000;

    enum NodeType {
        Compute,
        Storage,
        Wireless,
        Sensor,
        Energy
    }

    enum NodeStatus {
        None,
        Registered,
        Deregistered,
        Withdrawn
    }

    struct Config {
        uint256 minBond;
        uint256 heartbeatWindow;
        uint256 heartbeatInterval;
        uint256 bondReturnDelay;
    }

    struct Node {
        // word 0
        address owner;
        NodeType nodeType;
        NodeStatus status;
        uint64 registeredAt;
        // word 1
        address operator;
        uint64 lastHeartbeatBlock;
        // word 2
        uint128 bond;
        uint64 lastHeartbeatAt;
        uint64 heartbeatCount;
        // word 3
        uint64 firstHeartbeatBlock;
        uint64 deregisteredAt;
        uint64 bondAvailableAt;
        uint32 bucketCount;
        string region;
        string endpoint;
    }

    struct NodeInfo {
        bytes32 id;
        address owner;
        address operator;
        string nodeType;
        string region;
        string endpoint;
        uint256 bond;
        NodeStatus status;
        bool active;
        uint256 registeredAt;
        uint256 lastHeartbeatBlock;
        uint256 lastHeartbeatAt;
        uint256 heartbeatCount;
        uint256 firstHeartbeatBlock;
        uint256 heartbeatsSeen;
        uint256 heartbeatsExpected;
        uint256 uptimeBps;
        uint256 deregisteredAt;
        uint256 bondAvailableAt;
    }

    uint256 public immutable minBond;
    uint256 public immutable heartbeatWindow;
    uint256 public immutable heartbeatInterval;
    uint256 public immutable bondReturnDelay;
    uint256 private immutable _windowBuckets;

    mapping(bytes32 => Node) private _nodes;
    /// @dev Ring of the last MAX_WINDOW_BUCKETS distinct heartbeat buckets, stored as bucket + 1.
    mapping(bytes32 => uint64[32]) private _buckets;
    bytes32[] private _ids;

    bool private transient _locked;

    event NodeRegistered(
        bytes32 indexed id,
        address indexed owner,
        string nodeType,
        string region,
        string endpoint,
        address operator,
        uint256 bond
    );
    event Heartbeat(bytes32 indexed id, address indexed sender, uint256 blockNumber, uint256 timestamp, uint256 count);
    event NodeUpdated(bytes32 indexed id, string region, string endpoint, address operator);
    event NodeDeregistered(bytes32 indexed id, uint256 bondAvailableAt);
    event BondWithdrawn(bytes32 indexed id, address indexed owner, uint256 amount);

    error InvalidConfig(string field);
    error InvalidNodeId();
    error NodeExists(bytes32 id);
    error UnknownNode(bytes32 id);
    error UnknownNodeType(string nodeType);
    error BondTooLow(uint256 sent, uint256 minimum);
    error FieldTooLong(string field, uint256 maxLength);
    error NotNodeOwner(bytes32 id, address caller);
    error NotNodeOwnerOrOperator(bytes32 id, address caller);
    error NodeIsDeregistered(bytes32 id);
    error NodeNotDeregistered(bytes32 id);
    error BondLocked(bytes32 id, uint256 availableAt);
    error BondAlreadyWithdrawn(bytes32 id);
    error TransferFailed(address to, uint256 amount);
    error Reentrancy();

    modifier nonReentrant() {
        if (_locked) revert Reentrancy();
        _locked = true;
        _;
        _locked = false;
    }

    constructor(Config memory cfg) {
        if (cfg.heartbeatInterval == 0) revert InvalidConfig("heartbeatInterval");
        uint256 k = cfg.heartbeatWindow / cfg.heartbeatInterval;
        if (k == 0 || k > MAX_WINDOW_BUCKETS) revert InvalidConfig("heartbeatWindow");
        if (cfg.bondReturnDelay > type(uint32).max) revert InvalidConfig("bondReturnDelay");
        minBond = cfg.minBond;
        heartbeatWindow = cfg.heartbeatWindow;
        heartbeatInterval = cfg.heartbeatInterval;
        bondReturnDelay = cfg.bondReturnDelay;
        _windowBuckets = k;
    }

    // ------------------------------------------------------------------ actions

    /// @notice Register node `id` owned by the caller, bonding msg.value (at least `minBond`).
    /// `operator` (may be the zero address) may send heartbeats on the owner's behalf.
    function register(
        bytes32 id,
        string calldata nodeType,
        string calldata region,
        string calldata endpoint,
        address operator
    ) external payable {
        if (id == bytes32(0)) revert InvalidNodeId();
        NodeType t = _parseType(nodeType);
        _checkFields(region, endpoint);
        if (msg.value < minBond) revert BondTooLow(msg.value, minBond);
        Node storage n = _nodes[id];
        if (n.status != NodeStatus.None) revert NodeExists(id);
        n.owner = msg.sender;
        n.nodeType = t;
        n.status = NodeStatus.Registered;
        n.registeredAt = uint64(block.number);
        n.operator = operator;
        n.bond = uint128(msg.value);
        n.region = region;
        n.endpoint = endpoint;
        _ids.push(id);
        emit NodeRegistered(id, msg.sender, nodeType, region, endpoint, operator, msg.value);
    }

    /// @notice Record a heartbeat for `id` (owner or operator only).
    function heartbeat(bytes32 id) external {
        Node storage n = _registered(id);
        if (msg.sender != n.owner && msg.sender != n.operator) revert NotNodeOwnerOrOperator(id, msg.sender);
        uint64 count = n.heartbeatCount + 1;
        if (count == 1) n.firstHeartbeatBlock = uint64(block.number);
        n.heartbeatCount = count;
        n.lastHeartbeatBlock = uint64(block.number);
        n.lastHeartbeatAt = uint64(block.timestamp);

        uint64 tag = uint64(block.number / heartbeatInterval) + 1;
        uint32 bc = n.bucketCount;
        uint64[32] storage ring = _buckets[id];
        if (bc == 0 || ring[(bc - 1) % MAX_WINDOW_BUCKETS] != tag) {
            ring[bc % MAX_WINDOW_BUCKETS] = tag;
            n.bucketCount = bc + 1;
        }
        emit Heartbeat(id, msg.sender, block.number, block.timestamp, count);
    }

    /// @notice Change region, endpoint and operator of `id` (owner only).
    function update(bytes32 id, string calldata region, string calldata endpoint, address operator) external {
        Node storage n = _registered(id);
        if (msg.sender != n.owner) revert NotNodeOwner(id, msg.sender);
        _checkFields(region, endpoint);
        n.region = region;
        n.endpoint = endpoint;
        n.operator = operator;
        emit NodeUpdated(id, region, endpoint, operator);
    }

    /// @notice Retire `id` (owner only); its bond can be withdrawn `bondReturnDelay` blocks later.
    function deregister(bytes32 id) external {
        Node storage n = _registered(id);
        if (msg.sender != n.owner) revert NotNodeOwner(id, msg.sender);
        uint256 availableAt = block.number + bondReturnDelay;
        n.status = NodeStatus.Deregistered;
        n.deregisteredAt = uint64(block.number);
        n.bondAvailableAt = uint64(availableAt);
        emit NodeDeregistered(id, availableAt);
    }

    /// @notice Return the bond of a deregistered node to its owner once the delay has passed.
    function withdrawBond(bytes32 id) external nonReentrant {
        Node storage n = _nodes[id];
        NodeStatus status = n.status;
        if (status == NodeStatus.None) revert UnknownNode(id);
        if (msg.sender != n.owner) revert NotNodeOwner(id, msg.sender);
        if (status == NodeStatus.Registered) revert NodeNotDeregistered(id);
        if (status == NodeStatus.Withdrawn) revert BondAlreadyWithdrawn(id);
        if (block.number < n.bondAvailableAt) revert BondLocked(id, n.bondAvailableAt);
        uint256 amount = n.bond;
        n.bond = 0;
        n.status = NodeStatus.Withdrawn;
        emit BondWithdrawn(id, msg.sender, amount);
        (bool ok,) = msg.sender.call{value: amount}("");
        if (!ok) revert TransferFailed(msg.sender, amount);
    }

    // ------------------------------------------------------------------ views

    function config() external view returns (Config memory) {
        return Config(minBond, heartbeatWindow, heartbeatInterval, bondReturnDelay);
    }

    /// @notice Number of nodes ever registered (any status).
    function nodeCount() external view returns (uint256) {
        return _ids.length;
    }

    /// @notice Registration-ordered page of node ids.
    function nodeIds(uint256 offset, uint256 limit) external view returns (bytes32[] memory out) {
        (uint256 from, uint256 count) = _page(offset, limit);
        out = new bytes32[](count);
        for (uint256 i; i < count; ++i) {
            out[i] = _ids[from + i];
        }
    }

    /// @notice Registration-ordered page of full node records.
    function getNodes(uint256 offset, uint256 limit) external view returns (NodeInfo[] memory out) {
        (uint256 from, uint256 count) = _page(offset, limit);
        out = new NodeInfo[](count);
        for (uint256 i; i < count; ++i) {
            out[i] = _info(_ids[from + i]);
        }
    }

    function getNode(bytes32 id) external view returns (NodeInfo memory) {
        if (_nodes[id].status == NodeStatus.None) revert UnknownNode(id);
        return _info(id);
    }

    function isActive(bytes32 id) public view returns (bool) {
        Node storage n = _nodes[id];
        return n.status == NodeStatus.Registered && n.heartbeatCount != 0
            && block.number - n.lastHeartbeatBlock <= heartbeatWindow;
    }

    /// @notice Heartbeat buckets seen and expected in the uptime window, and seen / expected in
    /// basis points (see the contract documentation for the definition).
    function uptime(bytes32 id) public view returns (uint256 seen, uint256 expected, uint256 bps) {
        Node storage n = _nodes[id];
        if (n.status == NodeStatus.None) revert UnknownNode(id);
        uint256 endBlock = n.status == NodeStatus.Registered ? block.number : n.deregisteredAt;
        uint256 end = endBlock / heartbeatInterval;
        uint256 start = end + 1 >= _windowBuckets ? end + 1 - _windowBuckets : 0;
        uint256 regBucket = n.registeredAt / heartbeatInterval;
        if (regBucket > start) start = regBucket;
        bool endSeen;
        uint256 bc = n.bucketCount;
        uint256 stored = bc < MAX_WINDOW_BUCKETS ? bc : MAX_WINDOW_BUCKETS;
        uint64[32] storage ring = _buckets[id];
        for (uint256 i; i < stored; ++i) {
            uint256 tag = ring[(bc - 1 - i) % MAX_WINDOW_BUCKETS];
            uint256 b = tag - 1;
            if (b < start) break; // the ring is ordered: older entries are further back
            if (b > end) continue;
            ++seen;
            if (b == end) endSeen = true;
        }
        expected = end - start + (endSeen ? 1 : 0);
        bps = expected == 0 ? 0 : (seen * BPS) / expected;
    }

    function nodeTypeName(NodeType t) public pure returns (string memory) {
        if (t == NodeType.Compute) return "compute";
        if (t == NodeType.Storage) return "storage";
        if (t == NodeType.Wireless) return "wireless";
        if (t == NodeType.Sensor) return "sensor";
        return "energy";
    }

    // ------------------------------------------------------------------ internals

    function _registered(bytes32 id) private view returns (Node storage n) {
        n = _nodes[id];
        NodeStatus status = n.status;
        if (status == NodeStatus.None) revert UnknownNode(id);
        if (status != NodeStatus.Registered) revert NodeIsDeregistered(id);
    }

    function _parseType(string calldata t) private pure returns (NodeType) {
        bytes32 h = keccak256(bytes(t));
        if (h == keccak256("compute")) return NodeType.Compute;
        if (h == keccak256("storage")) return NodeType.Storage;
        if (h == keccak256("wireless")) return NodeType.Wireless;
        if (h == keccak256("sensor")) return NodeType.Sensor;
        if (h == keccak256("energy")) return NodeType.Energy;
        revert UnknownNodeType(t);
    }

    function _checkFields(string calldata region, string calldata endpoint) private pure {
        if (bytes(region).length > MAX_REGION_LENGTH) revert FieldTooLong("region", MAX_REGION_LENGTH);
        if (bytes(endpoint).length > MAX_ENDPOINT_LENGTH) revert FieldTooLong("endpoint", MAX_ENDPOINT_LENGTH);
    }

    function _page(uint256 offset, uint256 limit) private view returns (uint256 from, uint256 count) {
        uint256 total = _ids.length;
        if (offset >= total) return (total, 0);
        from = offset;
        count = total - offset < limit ? total - offset : limit;
    }

    function _info(bytes32 id) private view returns (NodeInfo memory info) {
        Node storage n = _nodes[id];
        info.id = id;
        info.owner = n.owner;
        info.operator = n.operator;
        info.nodeType = nodeTypeName(n.nodeType);
        info.region = n.region;
        info.endpoint = n.endpoint;
        info.bond = n.bond;
        info.status = n.status;
        info.active = isActive(id);
        info.registeredAt = n.registeredAt;
        info.lastHeartbeatBlock = n.lastHeartbeatBlock;
        info.lastHeartbeatAt = n.lastHeartbeatAt;
        info.heartbeatCount = n.heartbeatCount;
        info.firstHeartbeatBlock = n.firstHeartbeatBlock;
        (info.heartbeatsSeen, info.heartbeatsExpected, info.uptimeBps) = uptime(id);
        info.deregisteredAt = n.deregisteredAt;
        info.bondAvailableAt = n.bondAvailableAt;
    }
}
