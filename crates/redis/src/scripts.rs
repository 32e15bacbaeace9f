//! The Lua scripts: each checks the filter's keys and config hash, then
//! touches the bits, atomically, in one round trip.
//!
//! Every script takes `KEYS = [config, bits]` (the dense insert also a
//! scratch key) and, as `ARGV[1..=8]`, this handle's values of [`FIELDS`]
//! in that order. A script that finds the config missing, of the wrong
//! type, or different replies with one of the `BLOOMLAB_*` error codes
//! that [`crate::handle::script_error`] maps to typed errors; it checks
//! before it writes, so it changes nothing in that case.
//!
//! Batch scripts take the probes' offsets as decimal strings, one `ARGV`
//! each (see [`crate::handle::Handle::per_key`]): Redis turns a Lua
//! string into a command argument by copying it, but formats a Lua
//! number with `%.17g`, which dominated the cost of a batch.

use std::sync::LazyLock;

use redis::Script;

/// The config hash's fields, in the order scripts receive them.
pub(crate) const FIELDS: [&str; 8] = [
    "variant",
    "version",
    "m",
    "k",
    "family",
    "seed",
    "strategy",
    "reduction",
];

/// Shared by the scripts of every filter kind (this file's and
/// `scalable_scripts.rs`'): key types, and the config hash `KEYS[1]`
/// compared with `ARGV[1..#fields]`.
pub(crate) const COMMON: &str = r#"
local function keytype(key)
  return redis.call('TYPE', key)['ok']
end
local function wrongtype(expected, found, key)
  return redis.error_reply('BLOOMLAB_WRONGTYPE ' .. expected .. ' '
    .. found .. ' ' .. key)
end
-- An error reply naming the first field whose stored value differs from
-- the client's, or nil: the field, the stored value's length in bytes,
-- the stored value, the client's. The length is there because a stored
-- value may hold spaces (a hash anyone can edit); the client's never do.
local function config_differs(fields)
  local stored = redis.call('HMGET', KEYS[1], unpack(fields))
  for i = 1, #fields do
    local s = stored[i]
    if s ~= ARGV[i] then
      if not s then
        s = '(missing)'
      end
      return redis.error_reply('BLOOMLAB_CONFIG ' .. fields[i] .. ' '
        .. #s .. ' ' .. s .. ' ' .. ARGV[i])
    end
  end
end
"#;

/// Shared by every script of this file: `check(create, lost_ok)` returns
/// an error reply, or `nil` and whether the filter is absent (only when
/// `create`). A filter whose data key is gone (deleted, expired,
/// evicted) while its config stays is an error, `BLOOMLAB_LOST`, unless
/// `create` (an import replaces the data) or `lost_ok` (a delete): `CREATE`
/// always writes the data key, so its absence means the contents are
/// lost, and answering from nothing would turn members into non-members.
const PRELUDE: &str = r#"
local FIELDS = {'variant', 'version', 'm', 'k', 'family', 'seed',
                'strategy', 'reduction'}
local function check(create, lost_ok)
  local ct = keytype(KEYS[1])
  local bt = keytype(KEYS[2])
  if ct == 'none' then
    if bt ~= 'none' then
      return redis.error_reply('BLOOMLAB_ORPHAN ' .. KEYS[2])
    end
    if create then
      return nil, true
    end
    return redis.error_reply('BLOOMLAB_NOFILTER ' .. KEYS[1])
  end
  if ct ~= 'hash' then
    return wrongtype('hash', ct, KEYS[1])
  end
  if bt ~= 'none' and bt ~= 'string' then
    return wrongtype('string', bt, KEYS[2])
  end
  local e = config_differs(FIELDS)
  if e then
    return e
  end
  if bt == 'none' and not create and not lost_ok then
    return redis.error_reply('BLOOMLAB_LOST ' .. KEYS[2])
  end
  return nil, false
end
"#;

/// `ARGV[9]`: the Redis bit offset that sizes the string (the last
/// bit of its last byte). Creates the filter, or checks that it has these parameters.
/// Replies 1 if it created the filter, 0 if it existed.
///
/// The bits are allocated before the config is written: `SETBIT` is the
/// one command here a server can refuse (a string past its
/// `proto-max-bulk-len`), and Redis does not undo a script's writes when
/// a later command fails, so a refusal must come before anything is
/// written, or a config without its bits would stay behind.
const CREATE: &str = r#"
local e, fresh = check(true)
if e then
  return e
end
if not fresh then
  return 0
end
redis.call('SETBIT', KEYS[2], ARGV[9], 0)
for i = 1, #FIELDS do
  redis.call('HSET', KEYS[1], FIELDS[i], ARGV[i])
end
return 1
"#;

/// `ARGV[9]`: `k`; `ARGV[10..]`: the Redis bit offsets of every key,
/// `k` per key, each in decimal. Sets them; replies, per key, 1 if any
/// of its bits was clear, else 0.
///
/// One `SETBIT` per probe, each offset a string straight from `ARGV`:
/// handing Redis a Lua number costs a `%.17g` format per call (Redis
/// 7.0), which made the earlier `struct.unpack` version twice as slow.
const INSERT: &str = r#"
local e = check(false)
if e then
  return e
end
local k = tonumber(ARGV[9])
local n = math.floor((#ARGV - 9) / k)
local key = KEYS[2]
local call = redis.call
local out = {}
local b = 10
for i = 1, n do
  local changed = 0
  for j = 1, k do
    if call('SETBIT', key, ARGV[b], '1') == 0 then
      changed = 1
    end
    b = b + 1
  end
  out[i] = changed
end
return out
"#;

/// As [`INSERT`], reading: replies, per key, 1 if all its bits are set
/// (stopping at its first clear bit).
const CONTAINS: &str = r#"
local e = check(false)
if e then
  return e
end
local k = tonumber(ARGV[9])
local n = math.floor((#ARGV - 9) / k)
local key = KEYS[2]
local call = redis.call
local out = {}
local b = 10
for i = 1, n do
  local all = 1
  for j = 0, k - 1 do
    if call('GETBIT', key, ARGV[b + j]) == 0 then
      all = 0
      break
    end
  end
  b = b + k
  out[i] = all
end
return out
"#;

/// The dense batch insert: `KEYS[3]` is the scratch key `{name}:tmp`,
/// `ARGV[9]` a mask with the batch's bits set (Redis numbering), as long
/// as the batch's last byte. Replies the bits the mask covers, as they
/// were, then ORs the mask in with `BITOP`, whose cost is per byte of
/// the bitmap, not per probe (the scratch key lives only inside the
/// script).
const DENSE_INSERT: &str = r#"
local e = check(false)
if e then
  return e
end
-- The scratch key is the filter's own, but a client may have written
-- to it: refuse rather than overwrite their data.
if keytype(KEYS[3]) ~= 'none' then
  return redis.error_reply('BLOOMLAB_SCRATCH ' .. KEYS[3])
end
local old = redis.call('GETRANGE', KEYS[2], 0, #ARGV[9] - 1)
redis.call('SET', KEYS[3], ARGV[9])
redis.call('BITOP', 'OR', KEYS[2], KEYS[2], KEYS[3])
redis.call('DEL', KEYS[3])
return old
"#;

/// The dense batch query: `ARGV[9]`, the last byte to read. Replies the
/// bits up to it (shorter if the string is).
const DENSE_CONTAINS: &str = r#"
local e = check(false)
if e then
  return e
end
return redis.call('GETRANGE', KEYS[2], 0, ARGV[9])
"#;

/// Replies the bits string (nil when the bits key is missing).
const EXPORT: &str = r#"
local e = check(false)
if e then
  return e
end
return redis.call('GET', KEYS[2])
"#;

/// `ARGV[9]`: the bits string. Creates the filter or checks its
/// parameters, then replaces its bits. Replies 1 if it created it.
const IMPORT: &str = r#"
local e, fresh = check(true)
if e then
  return e
end
-- The bits first, as in CREATE.
redis.call('SET', KEYS[2], ARGV[9])
if fresh then
  for i = 1, #FIELDS do
    redis.call('HSET', KEYS[1], FIELDS[i], ARGV[i])
  end
end
if fresh then
  return 1
end
return 0
"#;

/// Checks the keys' types only, and replies the config fields (nil for
/// missing ones), in [`FIELDS`] order, then the data key's type
/// (`string` or `none`, for the caller to report a lost data key once
/// it knows the variant is its own). Takes no `ARGV`.
const OPEN: &str = r#"
local ct = keytype(KEYS[1])
local bt = keytype(KEYS[2])
if ct == 'none' then
  if bt ~= 'none' then
    return redis.error_reply('BLOOMLAB_ORPHAN ' .. KEYS[2])
  end
  return redis.error_reply('BLOOMLAB_NOFILTER ' .. KEYS[1])
end
if ct ~= 'hash' then
  return redis.error_reply('BLOOMLAB_WRONGTYPE hash ' .. ct .. ' '
    .. KEYS[1])
end
if bt ~= 'none' and bt ~= 'string' then
  return redis.error_reply('BLOOMLAB_WRONGTYPE string ' .. bt .. ' '
    .. KEYS[2])
end
local reply = redis.call('HMGET', KEYS[1], unpack(FIELDS))
reply[#FIELDS + 1] = bt
return reply
"#;

/// Deletes both keys after checking the config (a filter whose data is
/// lost too). Replies 1.
const DELETE: &str = r#"
local e = check(false, true)
if e then
  return e
end
redis.call('DEL', KEYS[1], KEYS[2])
return 1
"#;

/// The counting filter's insert: as [`INSERT`], with the bit offsets of
/// 4-bit counters (`4 · index`, so no `#` needs building in Lua). One
/// `BITFIELD` per key: `OVERFLOW SAT`, then `GET u4` and `INCRBY u4 1`
/// for each probe, so counters saturate at 15 and a probe that finds its
/// counter at 15 changes nothing. Ops run in order, so a key probing one
/// counter twice sees its own first increment. Replies, per key, 1 if
/// any of its counters changed.
const COUNTING_INSERT: &str = r#"
local e = check(false)
if e then
  return e
end
local k = tonumber(ARGV[9])
local n = math.floor((#ARGV - 9) / k)
local key = KEYS[2]
local call = redis.call
local args = {'OVERFLOW', 'SAT'}
for j = 1, k do
  local a = 2 + 7 * (j - 1)
  args[a + 1] = 'GET'
  args[a + 2] = 'u4'
  args[a + 4] = 'INCRBY'
  args[a + 5] = 'u4'
  args[a + 7] = '1'
end
local out = {}
local b = 10
for i = 1, n do
  for j = 1, k do
    local a = 2 + 7 * (j - 1)
    args[a + 3] = ARGV[b]
    args[a + 6] = ARGV[b]
    b = b + 1
  end
  local r = call('BITFIELD', key, unpack(args))
  local changed = 0
  for j = 1, k do
    if r[2 * j] ~= r[2 * j - 1] then
      changed = 1
    end
  end
  out[i] = changed
end
return out
"#;

/// Replies, per key, the minimum of its counters (0: absent), stopping
/// at its first zero counter. Offsets as for [`COUNTING_INSERT`].
/// `BITFIELD_RO` (Redis 6.0), not `BITFIELD ... GET`, which Redis counts
/// as a write: refused on a read-only replica and on a server at its
/// `maxmemory`, where a query should still answer.
const COUNTING_MIN: &str = r#"
local e = check(false)
if e then
  return e
end
local k = tonumber(ARGV[9])
local n = math.floor((#ARGV - 9) / k)
local key = KEYS[2]
local call = redis.call
local out = {}
local b = 10
for i = 1, n do
  local min = 15
  for j = 0, k - 1 do
    local c = call('BITFIELD_RO', key, 'GET', 'u4', ARGV[b + j])[1]
    if c < min then
      min = c
    end
    if min == 0 then
      break
    end
  end
  b = b + k
  out[i] = min
end
return out
"#;

/// Removes keys (`k` offsets each, as for [`COUNTING_INSERT`]), in
/// order: walks each key's probes, decrementing counters below 15 (a
/// saturated counter stays). Replies, per key, the decrements skipped
/// on saturated counters, or `-(j + 1)` for a key refused at a zero
/// counter at its probe `j`, which changes nothing (the next key goes
/// on). Two `BITFIELD` calls a key (its `k` counters read in one, its
/// decrements in the other), not one a probe: 10 µs a key in batches of
/// 10,000 against 14 (a local server, one-off loop, 2026-11-27).
const COUNTING_REMOVE: &str = r#"
local e = check(false)
if e then
  return e
end
local k = tonumber(ARGV[9])
local n = math.floor((#ARGV - 9) / k)
local key = KEYS[2]
local call = redis.call
local gets = {}
for j = 0, k - 1 do
  gets[3 * j + 1] = 'GET'
  gets[3 * j + 2] = 'u4'
end
local out = {}
local b = 10
for i = 1, n do
  for j = 0, k - 1 do
    gets[3 * j + 3] = ARGV[b + j]
  end
  local r = call('BITFIELD', key, unpack(gets))
  local seen = {}
  local dec = {}
  local skipped = 0
  for j = 0, k - 1 do
    local o = ARGV[b + j]
    local c = seen[o]
    if c == nil then
      c = r[j + 1]
    end
    if c == 0 then
      skipped = -(j + 1)
      break
    end
    if c < 15 then
      c = c - 1
      dec[#dec + 1] = 'INCRBY'
      dec[#dec + 1] = 'u4'
      dec[#dec + 1] = o
      dec[#dec + 1] = '-1'
    else
      skipped = skipped + 1
    end
    seen[o] = c
  end
  if skipped >= 0 and #dec > 0 then
    call('BITFIELD', key, unpack(dec))
  end
  b = b + k
  out[i] = skipped
end
return out
"#;

/// The compiled scripts (their SHA1s computed once).
pub(crate) struct Scripts {
    pub(crate) counting_insert: Script,
    pub(crate) counting_min: Script,
    pub(crate) counting_remove: Script,
    pub(crate) create: Script,
    pub(crate) insert: Script,
    pub(crate) dense_insert: Script,
    pub(crate) dense_contains: Script,
    pub(crate) contains: Script,
    pub(crate) export: Script,
    pub(crate) import: Script,
    pub(crate) open: Script,
    pub(crate) delete: Script,
}

fn with_prelude(body: &str) -> Script {
    Script::new(&format!("{COMMON}{PRELUDE}{body}"))
}

pub(crate) static SCRIPTS: LazyLock<Scripts> = LazyLock::new(|| Scripts {
    counting_insert: with_prelude(COUNTING_INSERT),
    counting_min: with_prelude(COUNTING_MIN),
    counting_remove: with_prelude(COUNTING_REMOVE),
    create: with_prelude(CREATE),
    insert: with_prelude(INSERT),
    dense_insert: with_prelude(DENSE_INSERT),
    dense_contains: with_prelude(DENSE_CONTAINS),
    contains: with_prelude(CONTAINS),
    export: with_prelude(EXPORT),
    import: with_prelude(IMPORT),
    open: with_prelude(OPEN),
    delete: with_prelude(DELETE),
});
