package plan

// ConditionEnforcementVerified says whether the freeze really refuses: the
// enforcer's webhooks fail closed and cover the frozen namespaces and
// kinds, it loaded the plan's policies, no exception or filter exempts
// them, and the last probe was refused (package health decides it).
const ConditionEnforcementVerified = "EnforcementVerified"

// EventEnforcementChanged records that EnforcementVerified changed status
// or reason: the unverified intervals of a run.
const EventEnforcementChanged EventType = "EnforcementChanged"
