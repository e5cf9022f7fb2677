-- Argo CD health check for telark.io/ProtectionPlan (resource.customizations
-- "telark.io/ProtectionPlan" health.lua; see README.md). Argo CD passes the
-- live object as obj and reads hs.status and hs.message.
--
--   no status yet, or a generation the operator has not observed: Progressing
--   pending_approval: Suspended (waiting for an approver)
--   canceled (or rejected): Suspended (a person may reactivate it)
--   failed: Degraded (Ready's reason and message; the operator retries)
--   active while retried after a failure (Reconciling True): Progressing
--   active whose live policies differ from the plan (PoliciesHealthy False): Degraded
--   scheduled, active, terminated: Healthy
local hs = {}

local function condition(t)
  if obj.status == nil or obj.status.conditions == nil then
    return nil
  end
  for _, c in ipairs(obj.status.conditions) do
    if c.type == t then
      return c
    end
  end
  return nil
end

local function says(c, default)
  if c ~= nil and c.message ~= nil and c.message ~= "" then
    if c.reason ~= nil and c.reason ~= "" then
      return c.reason .. ": " .. c.message
    end
    return c.message
  end
  return default
end

if obj.status == nil or obj.status.phase == nil or obj.status.phase == "" then
  hs.status = "Progressing"
  hs.message = "waiting for the operator to take the plan in"
  return hs
end

local generation = obj.metadata.generation
local observed = obj.status.observedGeneration
if generation ~= nil and observed ~= nil and observed ~= generation then
  hs.status = "Progressing"
  hs.message = "waiting for the operator to observe generation " .. generation .. " (status is of " .. observed .. ")"
  return hs
end

local phase = obj.status.phase
local ready = condition("Ready")
local reconciling = condition("Reconciling")
local healthy = condition("PoliciesHealthy")

if phase == "pending_approval" then
  hs.status = "Suspended"
  hs.message = says(ready, "waiting for an approver")
elseif phase == "canceled" then
  hs.status = "Suspended"
  hs.message = says(ready, "canceled; reactivate the plan to run it again")
elseif phase == "failed" then
  hs.status = "Degraded"
  hs.message = says(ready, "the plan could not be put in place")
elseif (reconciling ~= nil and reconciling.status == "True") or (ready ~= nil and ready.status ~= "True") then
  hs.status = "Progressing"
  hs.message = says(reconciling ~= nil and reconciling.status == "True" and reconciling or ready, "the plan is being put in place")
elseif phase == "active" and healthy ~= nil and healthy.status == "False" then
  hs.status = "Degraded"
  hs.message = says(healthy, "the live policies differ from the plan")
elseif phase == "scheduled" or phase == "active" or phase == "terminated" then
  hs.status = "Healthy"
  hs.message = says(ready, phase)
else
  hs.status = "Unknown"
  hs.message = "unknown phase " .. phase
end
return hs
