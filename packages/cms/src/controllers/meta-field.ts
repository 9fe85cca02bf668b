import { RestError } from '../rest/errors.ts';
import type { JsonSchema } from '../rest/schema.ts';

/**
 * The `meta` property of an object type with no registered meta keys (WP_REST_Meta_Fields with nothing
 * registered): shown as `[]`, accepts an object whose keys are ignored.
 */
export function emptyMetaSchema(): JsonSchema {
  return {
    description: 'Meta fields.',
    type: 'object',
    context: ['view', 'edit'],
    properties: [] as unknown as Record<string, JsonSchema>,
    arg_options: {
      sanitizeCallback: false,
      validateCallback: (value: unknown) =>
        value !== null && typeof value === 'object'
          ? true
          : new RestError('rest_invalid_param', 'The meta value must be an object.', { status: 400 }),
    },
  };
}
