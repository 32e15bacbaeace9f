//! The Lua scripts: each checks the filter's keys and config hash, then
//! touches the bits, atomically, in one round trip.
//!
//! Every script takes `KEYS = [config, bits]` and, as `ARGV[1..=8]`, this
//! handle's values of [`FIELDS`] in that order. A script that finds the
//! config missing, of the wrong type, or different replies with one of
//! the `BLOOMLAB_*` error codes that [`crate::filter`] maps to typed
//! errors; it changes nothing in that case.

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

/// Shared by every script: `check(create)` returns an error reply, or
/// `nil` and whether the filter is absent (only when `create`).
const PRELUDE: &str = r#"
local FIELDS = {'variant', 'version', 'm', 'k', 'family', 'seed',
                'strategy', 'reduction'}
local function keytype(key)
  return redis.call('TYPE', key)['ok']
end
local function check(create)
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
    return redis.error_reply('BLOOMLAB_WRONGTYPE hash ' .. ct .. ' '
      .. KEYS[1])
  end
  if bt ~= 'none' and bt ~= 'string' then
    return redis.error_reply('BLOOMLAB_WRONGTYPE string ' .. bt .. ' '
      .. KEYS[2])
  end
  local stored = redis.call('HMGET', KEYS[1], unpack(FIELDS))
  for i = 1, #FIELDS do
    local s = stored[i]
    if s ~= ARGV[i] then
      if not s then
        s = '(missing)'
      end
      return redis.error_reply('BLOOMLAB_CONFIG ' .. FIELDS[i] .. ' '
        .. s .. ' ' .. ARGV[i])
    end
  end
  return nil, false
end
"#;

/// `ARGV[9]`: the Redis bit offset that sizes the string (the last
/// bit of its last byte). Creates the filter, or checks that it has these parameters.
/// Replies 1 if it created the filter, 0 if it existed.
const CREATE: &str = r#"
local e, fresh = check(true)
if e then
  return e
end
if not fresh then
  return 0
end
for i = 1, #FIELDS do
  redis.call('HSET', KEYS[1], FIELDS[i], ARGV[i])
end
redis.call('SETBIT', KEYS[2], ARGV[9], 0)
return 1
"#;

/// `ARGV[9]`: `k`; `ARGV[10]`: the Redis bit offsets of every key, `k`
/// per key, each a little-endian `u32`. Sets them; replies, per key,
/// 1 if any of its bits was clear, else 0.
const INSERT: &str = r#"
local e = check(false)
if e then
  return e
end
local k = tonumber(ARGV[9])
local s = ARGV[10]
local fmt = '<' .. string.rep('I4', k)
local out = {}
local pos = 1
for i = 1, #s / (4 * k) do
  local v = {struct.unpack(fmt, s, pos)}
  pos = v[k + 1]
  local changed = 0
  for j = 1, k do
    if redis.call('SETBIT', KEYS[2], v[j], 1) == 0 then
      changed = 1
    end
  end
  out[i] = changed
end
return out
"#;

/// As [`INSERT`], reading: replies, per key, 1 if all its bits are set.
const CONTAINS: &str = r#"
local e = check(false)
if e then
  return e
end
local k = tonumber(ARGV[9])
local s = ARGV[10]
local fmt = '<' .. string.rep('I4', k)
local out = {}
local pos = 1
for i = 1, #s / (4 * k) do
  local v = {struct.unpack(fmt, s, pos)}
  pos = v[k + 1]
  local all = 1
  for j = 1, k do
    if redis.call('GETBIT', KEYS[2], v[j]) == 0 then
      all = 0
      break
    end
  end
  out[i] = all
end
return out
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
if fresh then
  for i = 1, #FIELDS do
    redis.call('HSET', KEYS[1], FIELDS[i], ARGV[i])
  end
end
redis.call('SET', KEYS[2], ARGV[9])
if fresh then
  return 1
end
return 0
"#;

/// Checks the keys' types only, and replies the config fields (nil for
/// missing ones), in [`FIELDS`] order. Takes no `ARGV`.
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
return redis.call('HMGET', KEYS[1], unpack(FIELDS))
"#;

/// Deletes both keys after checking the config. Replies 1.
const DELETE: &str = r#"
local e = check(false)
if e then
  return e
end
redis.call('DEL', KEYS[1], KEYS[2])
return 1
"#;

/// The counting filter's insert: as [`INSERT`], with 4-bit counter
/// indices; `BITFIELD ... OVERFLOW SAT INCRBY u4` saturates counters at
/// 15. Replies, per key, 1 if any of its counters changed.
const COUNTING_INSERT: &str = r#"
local e = check(false)
if e then
  return e
end
local k = tonumber(ARGV[9])
local s = ARGV[10]
local fmt = '<' .. string.rep('I4', k)
local out = {}
local pos = 1
for i = 1, #s / (4 * k) do
  local v = {struct.unpack(fmt, s, pos)}
  pos = v[k + 1]
  local changed = 0
  for j = 1, k do
    local o = '#' .. v[j]
    local r = redis.call('BITFIELD', KEYS[2], 'GET', 'u4', o,
      'OVERFLOW', 'SAT', 'INCRBY', 'u4', o, 1)
    if r[2] ~= r[1] then
      changed = 1
    end
  end
  out[i] = changed
end
return out
"#;

/// Replies, per key, the minimum of its counters (0: absent).
const COUNTING_MIN: &str = r#"
local e = check(false)
if e then
  return e
end
local k = tonumber(ARGV[9])
local s = ARGV[10]
local fmt = '<' .. string.rep('I4', k)
local out = {}
local pos = 1
for i = 1, #s / (4 * k) do
  local v = {struct.unpack(fmt, s, pos)}
  pos = v[k + 1]
  local min = 15
  for j = 1, k do
    local c = redis.call('BITFIELD', KEYS[2], 'GET', 'u4', '#' .. v[j])[1]
    if c < min then
      min = c
    end
    if min == 0 then
      break
    end
  end
  out[i] = min
end
return out
"#;

/// Removes one key (its `k` counter indices in `ARGV[10]`): walks its
/// probes in order, decrementing counters below 15 (a saturated counter
/// stays); at a zero counter, replies `BLOOMLAB_NOTPRESENT probe index`
/// and changes nothing. Replies a one-element array: the decrements
/// skipped on saturated counters.
const COUNTING_REMOVE: &str = r#"
local e = check(false)
if e then
  return e
end
local k = tonumber(ARGV[9])
local v = {struct.unpack('<' .. string.rep('I4', k), ARGV[10])}
local seen = {}
local dec = {}
local skipped = 0
for j = 1, k do
  local o = v[j]
  local c = seen[o]
  if c == nil then
    c = redis.call('BITFIELD', KEYS[2], 'GET', 'u4', '#' .. o)[1]
  end
  if c == 0 then
    return redis.error_reply('BLOOMLAB_NOTPRESENT ' .. (j - 1) .. ' ' .. o)
  end
  if c < 15 then
    c = c - 1
    dec[#dec + 1] = o
  else
    skipped = skipped + 1
  end
  seen[o] = c
end
for _, o in ipairs(dec) do
  redis.call('BITFIELD', KEYS[2], 'INCRBY', 'u4', '#' .. o, -1)
end
return {skipped}
"#;

/// The compiled scripts (their SHA1s computed once).
pub(crate) struct Scripts {
    pub(crate) counting_insert: Script,
    pub(crate) counting_min: Script,
    pub(crate) counting_remove: Script,
    pub(crate) create: Script,
    pub(crate) insert: Script,
    pub(crate) contains: Script,
    pub(crate) export: Script,
    pub(crate) import: Script,
    pub(crate) open: Script,
    pub(crate) delete: Script,
}

fn with_prelude(body: &str) -> Script {
    Script::new(&format!("{PRELUDE}{body}"))
}

pub(crate) static SCRIPTS: LazyLock<Scripts> = LazyLock::new(|| Scripts {
    counting_insert: with_prelude(COUNTING_INSERT),
    counting_min: with_prelude(COUNTING_MIN),
    counting_remove: with_prelude(COUNTING_REMOVE),
    create: with_prelude(CREATE),
    insert: with_prelude(INSERT),
    contains: with_prelude(CONTAINS),
    export: with_prelude(EXPORT),
    import: with_prelude(IMPORT),
    open: with_prelude(OPEN),
    delete: with_prelude(DELETE),
});
