//! The Lua scripts of [`crate::RedisScalableBloomFilter`]: each checks
//! the config hash, reads the chain hash (layer count, per-layer shapes
//! and counts) and touches the layers, atomically, in one round trip.
//!
//! Every script takes `KEYS = [config, chain, layer 0, layer 1, ...]`
//! and, as `ARGV[1..=16]`, the handle's values of [`FIELDS`]. The chain
//! scripts then take `ARGV[17] = P`, the number of layers the client sent
//! keys (and, for inserts and queries, probe positions) for, and `4·P`
//! strings: each layer's capacity, bits, modulus and `k` as the client's
//! formula gives them. The script checks them against the stored layers.
//!
//! Why the client computes the positions and not the script: Redis Lua
//! has only doubles (53-bit integers) and 32-bit `bit` operations, so
//! the 64-bit wrapping double hashing, 64-bit modulo and multiply-shift
//! reductions of the in-memory filter would have to be emulated limb by
//! limb for every family and strategy — slow, and a second
//! implementation that could drift from the Rust one. The client already
//! has the exact code, so it sends positions for the `P` layers it knows
//! of; when the chain has more (another client grew it) or this batch
//! must open a layer beyond `P`, the script changes nothing and replies
//! how many layers to send, and the client retries. A retry happens only
//! when a layer was added.
//!
//! A chain hash claiming more than [`MAX_LAYERS`] layers is refused
//! before anything else is read.
//!
//! Replies of the chain scripts are arrays: `{-1, L}` means "the chain
//! has `L` layers, more than you sent", `{-2, N}` (inserts) "this batch
//! needs `N` layers"; both change nothing. Otherwise the first element is
//! the layer count after the call. Errors are `BLOOMLAB_*` replies, also
//! with nothing changed.

use std::sync::LazyLock;

use redis::Script;

use crate::MAX_LAYERS;
use crate::scripts::COMMON;

/// The config hash's fields, in the order scripts receive them.
pub(crate) const FIELDS: [&str; 16] = [
    "variant",
    "version",
    "n0",
    "error",
    "first-error",
    "tightening",
    "growth",
    "scaling",
    "half-fill",
    "layout",
    "sizing",
    "family",
    "seed",
    "pairing",
    "probe",
    "reduction",
];

/// Shared by every script: key checks, the config check, reading the
/// chain and checking the client's layer shapes.
const PRELUDE: &str = r#"
local FIELDS = {'variant', 'version', 'n0', 'error', 'first-error',
  'tightening', 'growth', 'scaling', 'half-fill', 'layout', 'sizing',
  'family', 'seed', 'pairing', 'probe', 'reduction'}
local NF = #FIELDS
local SPEC = {'capacity', 'bits', 'modulus', 'k'}
local function field(name)
  for i = 1, NF do
    if FIELDS[i] == name then
      return ARGV[i]
    end
  end
end
-- An error reply, or nil and whether the filter is absent (only when
-- `create`).
local function check(create)
  local ct = keytype(KEYS[1])
  if ct == 'none' then
    -- A chain or a first layer without its config: the name is taken.
    for i = 2, 3 do
      if KEYS[i] and keytype(KEYS[i]) ~= 'none' then
        return redis.error_reply('BLOOMLAB_ORPHAN ' .. KEYS[i])
      end
    end
    if create then
      return nil, true
    end
    return redis.error_reply('BLOOMLAB_NOFILTER ' .. KEYS[1])
  end
  if ct ~= 'hash' then
    return wrongtype('hash', ct, KEYS[1])
  end
  local e = config_differs(FIELDS)
  if e then
    return e
  end
  local ht = keytype(KEYS[2])
  if ht == 'none' then
    return redis.error_reply('BLOOMLAB_CHAIN ' .. KEYS[2] .. ' is missing')
  end
  if ht ~= 'hash' then
    return wrongtype('hash', ht, KEYS[2])
  end
  return nil, false
end
-- A count as stored: `0` or a decimal without a leading zero, below
-- 10^15 (exact as a Lua number, and a value HINCRBY takes), as a
-- number; else nil.
local function count_of(s)
  if s and #s <= 15 and (s == '0' or string.match(s, '^[1-9]%d*$')) then
    return tonumber(s)
  end
end
-- The chain's layer count, or nil and an error reply.
local function layer_count()
  local L = tonumber(redis.call('HGET', KEYS[2], 'layers'))
  -- Checked first: a corrupt count must not make the script build a
  -- huge field list.
  if not L or L < 1 or L > MAX_LAYERS or L % 1 ~= 0 then
    return nil, redis.error_reply('BLOOMLAB_CHAIN ' .. KEYS[2]
      .. ' has no layer count in 1..' .. MAX_LAYERS)
  end
  return L
end
-- The stored layers: a table per layer (1-based) with the shape strings
-- `s` and the numbers count, ones, bits, k; or nil and an error reply.
-- Every count is checked here, before a caller writes anything: Redis
-- does not undo a script's writes when a later command or a Lua error
-- stops it, so arithmetic on a corrupt count after the writes would
-- leave a batch half done.
local function read_chain()
  local L, e = layer_count()
  if not L then
    return nil, e
  end
  local names = {}
  for i = 0, L - 1 do
    for _, f in ipairs(SPEC) do
      names[#names + 1] = f .. ':' .. i
    end
    names[#names + 1] = 'count:' .. i
    names[#names + 1] = 'ones:' .. i
  end
  local v = redis.call('HMGET', KEYS[2], unpack(names))
  local layers = {}
  for i = 1, L do
    local b = 6 * (i - 1)
    for j = 1, 6 do
      if not v[b + j] then
        return nil, redis.error_reply('BLOOMLAB_CHAIN ' .. KEYS[2]
          .. ' lacks ' .. names[b + j])
      end
      if not count_of(v[b + j]) then
        return nil, redis.error_reply('BLOOMLAB_CHAIN ' .. KEYS[2]
          .. ' has ' .. names[b + j] .. ' = ' .. v[b + j]
          .. ', not a count')
      end
    end
    layers[i] = {
      s = {capacity = v[b + 1], bits = v[b + 2], modulus = v[b + 3],
           k = v[b + 4], count = v[b + 5], ones = v[b + 6]},
      bits = tonumber(v[b + 2]), k = tonumber(v[b + 4]),
      count = tonumber(v[b + 5]), ones = tonumber(v[b + 6])}
  end
  return layers
end
-- The client's P and its shape strings for layer i (1-based).
local P = tonumber(ARGV[NF + 1])
local function client_spec(i)
  local b = NF + 1 + 4 * (i - 1)
  return {capacity = ARGV[b + 1], bits = ARGV[b + 2],
          modulus = ARGV[b + 3], k = ARGV[b + 4]}
end
-- After check(false): the stored layers, or nil and a reply (an error,
-- or {-1, L} when the client sent fewer than the L layers). Checks the
-- client's shapes and the layer keys' types.
local function open_chain()
  local layers, e = read_chain()
  if not layers then
    return nil, e
  end
  if #layers > P then
    return nil, {-1, #layers}
  end
  for i = 1, #layers do
    local c = client_spec(i)
    for _, f in ipairs(SPEC) do
      if layers[i].s[f] ~= c[f] then
        return nil, redis.error_reply('BLOOMLAB_LAYER ' .. (i - 1) .. ' '
          .. f .. ' ' .. layers[i].s[f] .. ' ' .. c[f])
      end
    end
    local t = keytype(KEYS[2 + i])
    if t == 'none' then
      return nil, redis.error_reply('BLOOMLAB_CHAIN ' .. KEYS[2 + i]
        .. ' is missing')
    end
    if t ~= 'string' then
      return nil, wrongtype('string', t, KEYS[2 + i])
    end
  end
  return layers
end
-- Allocates layers from..to (1-based) at full size, all clear; on a
-- refusal (a string past the server's proto-max-bulk-len) deletes those
-- it made and returns the error reply, so nothing stays behind.
local function allocate(from, to)
  for i = from, to do
    local bits = tonumber(client_spec(i).bits)
    local r = redis.pcall('SETBIT', KEYS[2 + i],
      math.ceil(bits / 8) * 8 - 1, 0)
    if type(r) == 'table' and r.err then
      for j = from, i - 1 do
        redis.call('DEL', KEYS[2 + j])
      end
      return r
    end
  end
end
-- Records the shape of layer i (1-based), allocated by `allocate`.
local function new_layer(i)
  local c = client_spec(i)
  local j = ':' .. (i - 1)
  redis.call('HSET', KEYS[2], 'capacity' .. j, c.capacity, 'bits' .. j,
    c.bits, 'modulus' .. j, c.modulus, 'k' .. j, c.k, 'count' .. j, 0,
    'ones' .. j, 0)
end
-- The probe positions: per key, per layer 1..P, k little-endian u32
-- Redis bit offsets.
local POS = P and ARGV[NF + 2 + 4 * P]
local KS, OFF, BLOCK = {}, {}, 0
if POS then
  for i = 1, P do
    KS[i] = tonumber(client_spec(i).k)
    OFF[i] = BLOCK
    BLOCK = BLOCK + 4 * KS[i]
  end
end
local FMT = {}
local function probes(j, i)
  local f = FMT[i]
  if not f then
    f = '<' .. string.rep('I4', KS[i])
    FMT[i] = f
  end
  return {struct.unpack(f, POS, 1 + (j - 1) * BLOCK + OFF[i])}
end
local function key_count()
  if BLOCK == 0 or #POS % BLOCK ~= 0 then
    return nil
  end
  return #POS / BLOCK
end
"#;

/// `ARGV[17] = 1`, then layer 0's shape. Creates the filter (config,
/// chain, layer 0 allocated), or checks its config; replies 1 if it
/// created it, 0 if it existed.
const CREATE: &str = r#"
local e, fresh = check(true)
if e then
  return e
end
if not fresh then
  return 0
end
-- Layer 0 first: its allocation is what a server may refuse.
e = allocate(1, 1)
if e then
  return e
end
for i = 1, NF do
  redis.call('HSET', KEYS[1], FIELDS[i], ARGV[i])
end
redis.call('HSET', KEYS[2], 'layers', 1, 'skipped', 0)
new_layer(1)
return 1
"#;

/// Inserts, as the in-memory filter's `add` key after key: a key any
/// layer reports present is skipped (0); otherwise it goes to the newest
/// layer, a new layer first if that one is full (1). Phase 1 simulates
/// the whole batch against the stored bits plus the bits it would set
/// (so it can stop, with nothing changed, when it needs a layer the
/// client sent no positions for, or a non-scaling filter is full); phase
/// 2 writes. Replies `{layers, per key 1|0}`.
const INSERT: &str = r#"
local e = check(false)
if e then
  return e
end
local layers, r = open_chain()
if not layers then
  return r
end
local n = key_count()
if not n then
  return redis.error_reply('BLOOMLAB_ARGS positions do not fit ' .. P
    .. ' layers')
end
local L = #layers
-- Checked before any write, as read_chain checks the layers' counts.
local stored_skipped = redis.call('HGET', KEYS[2], 'skipped')
if stored_skipped and not count_of(stored_skipped) then
  return redis.error_reply('BLOOMLAB_CHAIN ' .. KEYS[2] .. ' has skipped = '
    .. stored_skipped .. ', not a count')
end
local scaling = field('scaling') == '1'
local half = field('half-fill') == '1'
local cap, bits, count, ones, cache = {}, {}, {}, {}, {}
for i = 1, P do
  local c = client_spec(i)
  cap[i] = tonumber(c.capacity)
  bits[i] = tonumber(c.bits)
  if i <= L then
    count[i] = layers[i].count
    ones[i] = layers[i].ones
  else
    count[i] = 0
    ones[i] = 0
  end
  cache[i] = {}
end
-- A bit as it would be after the writes so far.
local function getbit(i, p)
  local c = cache[i]
  local v = c[p]
  if v == nil then
    if i <= L then
      v = redis.call('GETBIT', KEYS[2 + i], p)
    else
      v = 0
    end
    c[p] = v
  end
  return v
end
local nl = L
local out = {0}
local writes = {}
local skipped = 0
for j = 1, n do
  local present = false
  for i = nl, 1, -1 do
    local v = probes(j, i)
    local all = true
    for t = 1, KS[i] do
      if getbit(i, v[t]) == 0 then
        all = false
        break
      end
    end
    if all then
      present = true
      break
    end
  end
  if present then
    skipped = skipped + 1
    out[j + 1] = 0
  else
    if count[nl] >= cap[nl] or (half and 2 * ones[nl] >= bits[nl]) then
      if not scaling then
        return redis.error_reply('BLOOMLAB_FULL ' .. (j - 1) .. ' '
          .. client_spec(1).capacity)
      end
      if nl >= P then
        return {-2, nl + 1}
      end
      nl = nl + 1
      if keytype(KEYS[2 + nl]) ~= 'none' then
        return redis.error_reply('BLOOMLAB_NEXT_LAYER ' .. KEYS[2 + nl])
      end
    end
    local v = probes(j, nl)
    local c = cache[nl]
    for t = 1, KS[nl] do
      local p = v[t]
      -- Without the half-fill rule nothing needs the exact count of set
      -- bits before the writes, so unknown bits are not read: phase 2
      -- counts the ones it sets. With the rule, read them now.
      if half then
        if getbit(nl, p) == 0 then
          c[p] = 1
          writes[#writes + 1] = nl
          writes[#writes + 1] = p
          ones[nl] = ones[nl] + 1
        end
      elseif c[p] ~= 1 then
        c[p] = 1
        writes[#writes + 1] = nl
        writes[#writes + 1] = p
      end
    end
    count[nl] = count[nl] + 1
    out[j + 1] = 1
  end
end
e = allocate(L + 1, nl)
if e then
  return e
end
for i = L + 1, nl do
  new_layer(i)
end
-- Phase 2: the bits, a few hundred per BITFIELD call (one command for
-- many bits costs far less than one SETBIT each); its replies, the old
-- values, count the bits that were clear.
local gained, pending = {}, {}
for i = L, nl do
  gained[i] = 0
  pending[i] = {}
end
local function flush(i)
  local a = pending[i]
  if #a > 0 then
    local old = redis.call('BITFIELD', KEYS[2 + i], unpack(a))
    for _, o in ipairs(old) do
      if o == 0 then
        gained[i] = gained[i] + 1
      end
    end
    pending[i] = {}
  end
end
for w = 1, #writes, 2 do
  local i = writes[w]
  local a = pending[i]
  a[#a + 1] = 'SET'
  a[#a + 1] = 'u1'
  a[#a + 1] = writes[w + 1]
  a[#a + 1] = 1
  if #a >= 1024 then
    flush(i)
  end
end
for i = L, nl do
  flush(i)
  local stored = 0
  if i <= L then
    stored = layers[i].ones
  end
  local j = ':' .. (i - 1)
  redis.call('HSET', KEYS[2], 'count' .. j, count[i], 'ones' .. j,
    stored + gained[i])
end
redis.call('HSET', KEYS[2], 'layers', nl)
redis.call('HINCRBY', KEYS[2], 'skipped', skipped)
out[1] = nl
return out
"#;

/// Replies `{layers, per key 1 if some layer has all its bits}`.
const CONTAINS: &str = r#"
local e = check(false)
if e then
  return e
end
local layers, r = open_chain()
if not layers then
  return r
end
local n = key_count()
if not n then
  return redis.error_reply('BLOOMLAB_ARGS positions do not fit ' .. P
    .. ' layers')
end
local L = #layers
local out = {L}
for j = 1, n do
  local found = 0
  for i = L, 1, -1 do
    local v = probes(j, i)
    local all = true
    for t = 1, KS[i] do
      if redis.call('GETBIT', KEYS[2 + i], v[t]) == 0 then
        all = false
        break
      end
    end
    if all then
      found = 1
      break
    end
  end
  out[j + 1] = found
end
return out
"#;

/// Replies `{layers, skipped, per layer: count, ones, bits string}`.
const EXPORT: &str = r#"
local e = check(false)
if e then
  return e
end
local layers, r = open_chain()
if not layers then
  return r
end
local out = {#layers, redis.call('HGET', KEYS[2], 'skipped') or '0'}
for i = 1, #layers do
  out[#out + 1] = layers[i].count
  out[#out + 1] = layers[i].ones
  out[#out + 1] = redis.call('GET', KEYS[2 + i])
end
return out
"#;

/// Only `KEYS = [config, chain]` and the fields. Replies `{layers,
/// skipped, per layer: capacity, bits, modulus, k, count, ones}` (the
/// stored strings).
const INFO: &str = r#"
local e = check(false)
if e then
  return e
end
local layers, r = read_chain()
if not layers then
  return r
end
local out = {#layers, redis.call('HGET', KEYS[2], 'skipped') or '0'}
for i = 1, #layers do
  local l = layers[i]
  for _, v in ipairs({l.s.capacity, l.s.bits, l.s.modulus, l.s.k,
                      l.s.count, l.s.ones}) do
    out[#out + 1] = v
  end
end
return out
"#;

/// After the shapes: `N` (layers to store, at most `P`), `N` counts, `N`
/// ones, skipped, `N` bits strings. Creates the filter or checks its
/// config, then replaces the whole chain: every stored layer key is
/// deleted (`{-1, L}` if the client sent fewer keys than the `L` stored
/// layers). Replies `{N}`.
const IMPORT: &str = r#"
local e, fresh = check(true)
if e then
  return e
end
-- Only the layer count of what is replaced is read, so an import can
-- replace a chain whose other fields are corrupt.
local old = 0
if not fresh then
  local L, r = layer_count()
  if not L then
    return r
  end
  old = L
  if old > P then
    return {-1, old}
  end
end
local b = NF + 2 + 4 * P
local n = tonumber(ARGV[b])
if not n or n < 1 or n > P then
  return redis.error_reply('BLOOMLAB_ARGS import of ' .. tostring(n)
    .. ' layers with ' .. P .. ' keys')
end
if fresh then
  for i = 1, NF do
    redis.call('HSET', KEYS[1], FIELDS[i], ARGV[i])
  end
end
for i = 1, old do
  redis.call('DEL', KEYS[2 + i])
end
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[2], 'layers', n, 'skipped', ARGV[b + 2 * n + 1])
for i = 1, n do
  local c = client_spec(i)
  local j = ':' .. (i - 1)
  redis.call('HSET', KEYS[2], 'capacity' .. j, c.capacity, 'bits' .. j,
    c.bits, 'modulus' .. j, c.modulus, 'k' .. j, c.k, 'count' .. j,
    ARGV[b + i], 'ones' .. j, ARGV[b + n + i])
  redis.call('SET', KEYS[2 + i], ARGV[b + 2 * n + 1 + i])
end
return {n}
"#;

/// Deletes the config, the chain and every layer after checking the
/// config (`{-1, L}` if the client sent fewer than `L` layer keys).
/// Replies `{L}`.
///
/// Only the layer count is read, so a chain whose other fields are
/// corrupt can still be deleted.
const DELETE: &str = r#"
local e = check(false)
if e then
  return e
end
local L, r = layer_count()
if not L then
  return r
end
if L > P then
  return {-1, L}
end
for i = 1, L do
  redis.call('DEL', KEYS[2 + i])
end
redis.call('DEL', KEYS[1], KEYS[2])
return {L}
"#;

/// Only `KEYS = [config, chain]`, no `ARGV`. Checks the keys' types and
/// replies the config fields (nil for missing ones) in [`FIELDS`] order,
/// then the layer count.
const OPEN: &str = r#"
local ct = keytype(KEYS[1])
local ht = keytype(KEYS[2])
if ct == 'none' then
  if ht ~= 'none' then
    return redis.error_reply('BLOOMLAB_ORPHAN ' .. KEYS[2])
  end
  return redis.error_reply('BLOOMLAB_NOFILTER ' .. KEYS[1])
end
if ct ~= 'hash' then
  return wrongtype('hash', ct, KEYS[1])
end
if ht ~= 'none' and ht ~= 'hash' then
  return wrongtype('hash', ht, KEYS[2])
end
local out = redis.call('HMGET', KEYS[1], unpack(FIELDS))
local L = false
if ht == 'hash' then
  L = redis.call('HGET', KEYS[2], 'layers')
end
out[NF + 1] = L
return out
"#;

/// The compiled scripts (their SHA1s computed once).
pub(crate) struct Scripts {
    pub(crate) create: Script,
    pub(crate) insert: Script,
    pub(crate) contains: Script,
    pub(crate) export: Script,
    pub(crate) info: Script,
    pub(crate) import: Script,
    pub(crate) delete: Script,
    pub(crate) open: Script,
}

fn with_prelude(body: &str) -> Script {
    Script::new(&format!(
        "local MAX_LAYERS = {MAX_LAYERS}\n{COMMON}{PRELUDE}{body}"
    ))
}

pub(crate) static SCRIPTS: LazyLock<Scripts> = LazyLock::new(|| Scripts {
    create: with_prelude(CREATE),
    insert: with_prelude(INSERT),
    contains: with_prelude(CONTAINS),
    export: with_prelude(EXPORT),
    info: with_prelude(INFO),
    import: with_prelude(IMPORT),
    delete: with_prelude(DELETE),
    open: with_prelude(OPEN),
});
