/**
 * The Lua test of whether a stored pin is still the pin a request read, shared by Redis's compare-and-delete
 * scripts (redis-pin-store.ts, and redis-pin-budget.ts for a bounded store).
 */

/**
 * Defines `same_pin(raw, provider, credentialId, model)`: true when the stored JSON `raw` names that provider,
 * credential ('' for none) and model ('' for none). Fields are compared rather than the JSON text, so a pin's
 * key order or an older pin's shape does not matter; text that is not a pin is never the same.
 */
export const SAME_PIN_LUA = `
local function same_pin(raw, provider, credential, model)
  local ok, pin = pcall(cjson.decode, raw)
  if not ok or type(pin) ~= 'table' then return false end
  local function text(value) if type(value) == 'string' then return value end return '' end
  return text(pin.provider) == provider and text(pin.credentialId) == credential and text(pin.model) == model
end
`;
