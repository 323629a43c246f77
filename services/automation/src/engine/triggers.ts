import { typeMatches } from '@crm/shared/events';
import type { Condition, Trigger } from '../workflows/workflows.schema';

/** The value at a dot path (`status`, `custom_fields.plan`) of a record; undefined when absent. */
export function valueAt(record: Record<string, unknown>, path: string): unknown {
  let current: unknown = record;
  for (const key of path.split('.')) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    if (!Object.prototype.hasOwnProperty.call(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/**
 * One condition on the triggering record. `equals` / `not_equals` compare scalars exactly
 * (`not_equals` holds for an absent field); `contains` is a substring test on a string field or
 * membership in an array field; `exists` holds when the field is present and not null.
 */
export function conditionHolds(record: Record<string, unknown>, condition: Condition): boolean {
  const actual = valueAt(record, condition.field);
  switch (condition.op) {
    case 'exists':
      return actual !== undefined && actual !== null;
    case 'equals':
      return actual === condition.value;
    case 'not_equals':
      return actual !== condition.value;
    case 'contains':
      if (typeof actual === 'string') {
        return typeof condition.value === 'string' && actual.includes(condition.value);
      }
      if (Array.isArray(actual)) return actual.includes(condition.value);
      return false;
  }
}

/** A trigger matches an event when its pattern matches the type and every condition holds. */
export function triggerMatches(
  trigger: Trigger,
  eventType: string,
  record: Record<string, unknown>,
): boolean {
  return (
    typeMatches(trigger.event, eventType) &&
    trigger.conditions.every((condition) => conditionHolds(record, condition))
  );
}
