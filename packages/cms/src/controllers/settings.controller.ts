/**
 * /cms/v2/settings — after WP_REST_Settings_Controller and the settings core registers with
 * show_in_rest (register_initial_settings, WordPress 6.1).
 * @wp 6.1
 */
import { sanitizeOption } from '../core/sanitize-option.ts';
import { writeTransaction } from '../db/write-transaction.ts';
import type { CmsContext } from '../module.ts';
import { RestController } from '../rest/controller.ts';
import { RestError } from '../rest/errors.ts';
import type { RestRequest } from '../rest/request.ts';
import { RestResponse } from '../rest/response.ts';
import { EDITABLE, READABLE } from '../rest/route.ts';
import type { JsonSchema } from '../rest/schema.ts';
import type { RestServer } from '../rest/server.ts';
import { parseValueFromSchema, sanitizeValueFromSchema, validateValueFromSchema } from '../rest/validation.ts';

interface SettingDef {
  option: string;
  schema: JsonSchema;
}

const SETTINGS: Record<string, SettingDef> = {
  title: { option: 'blogname', schema: { type: 'string', description: 'Site title.', default: null } },
  description: { option: 'blogdescription', schema: { type: 'string', description: 'Site tagline.', default: null } },
  url: { option: 'siteurl', schema: { type: 'string', description: 'Site URL.', default: null, format: 'uri' } },
  email: {
    option: 'admin_email',
    schema: {
      type: 'string',
      description: 'This address is used for admin purposes, like new user notification.',
      default: null,
      format: 'email',
    },
  },
  timezone: {
    option: 'timezone_string',
    schema: { type: 'string', description: 'A city in the same timezone as you.', default: null },
  },
  date_format: {
    option: 'date_format',
    schema: { type: 'string', description: 'A date format for all date strings.', default: null },
  },
  time_format: {
    option: 'time_format',
    schema: { type: 'string', description: 'A time format for all time strings.', default: null },
  },
  start_of_week: {
    option: 'start_of_week',
    schema: { type: 'integer', description: 'A day number of the week that the week should start on.', default: null },
  },
  language: { option: 'WPLANG', schema: { type: 'string', description: 'Site locale code.', default: 'en_US' } },
  use_smilies: {
    option: 'use_smilies',
    schema: {
      type: 'boolean',
      description: 'Convert emoticons like :-) and :-P to graphics on display.',
      default: true,
    },
  },
  default_category: {
    option: 'default_category',
    schema: { type: 'integer', description: 'Default post category.', default: null },
  },
  default_post_format: {
    option: 'default_post_format',
    schema: { type: 'string', description: 'Default post format.', default: null },
  },
  posts_per_page: {
    option: 'posts_per_page',
    schema: { type: 'integer', description: 'Blog pages show at most.', default: 10 },
  },
  show_on_front: {
    option: 'show_on_front',
    schema: { type: 'string', description: 'What to show on the front page', default: null },
  },
  page_on_front: {
    option: 'page_on_front',
    schema: {
      type: 'integer',
      description: 'The ID of the page that should be displayed on the front page',
      default: null,
    },
  },
  page_for_posts: {
    option: 'page_for_posts',
    schema: { type: 'integer', description: 'The ID of the page that should display the latest posts', default: null },
  },
  default_ping_status: {
    option: 'default_ping_status',
    schema: {
      type: 'string',
      description: 'Allow link notifications from other blogs (pingbacks and trackbacks) on new articles.',
      default: null,
      enum: ['open', 'closed'],
    },
  },
  default_comment_status: {
    option: 'default_comment_status',
    schema: {
      type: 'string',
      description: 'Allow people to submit comments on new posts.',
      default: null,
      enum: ['open', 'closed'],
    },
  },
  site_logo: { option: 'site_logo', schema: { type: 'integer', description: 'Site logo.', default: null } },
  site_icon: { option: 'site_icon', schema: { type: 'integer', description: 'Site icon.', default: null } },
};

export class SettingsController extends RestController {
  readonly namespace = 'cms/v2';
  readonly restBase = 'settings';

  constructor(private readonly ctx: CmsContext) {
    super();
  }

  protected buildItemSchema(): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    for (const [name, def] of Object.entries(SETTINGS)) {
      properties[name] = {
        ...def.schema,
        arg_options: {
          // A null value resets the option; anything else is validated and sanitised from the schema.
          sanitizeCallback: (value, _request, param) =>
            value === null ? null : parseValueFromSchema(value, def.schema, param),
        },
      };
    }
    return { $schema: 'http://json-schema.org/draft-04/schema#', title: 'settings', type: 'object', properties };
  }

  registerRoutes(server: RestServer): void {
    const permission = async (request: RestRequest) => request.can('manage_options');
    server.registerRoute(
      this.namespace,
      `/${this.restBase}`,
      [
        { methods: READABLE, handler: () => this.getItem(), args: {}, permission },
        {
          methods: EDITABLE,
          handler: (r) => this.updateItem(r),
          args: this.endpointArgsForItemSchema(EDITABLE),
          permission,
        },
      ],
      { schema: () => this.publicItemSchema() },
    );
  }

  /** prepare_value(): a stored value that does not fit the schema is shown as null. */
  private prepareValue(value: unknown, schema: JsonSchema): unknown {
    if (validateValueFromSchema(value, schema) !== true) return null;
    return sanitizeValueFromSchema(value, schema);
  }

  private async getItem(): Promise<RestResponse> {
    const data: Record<string, unknown> = {};
    for (const [name, def] of Object.entries(SETTINGS)) {
      let value = await this.ctx.options.get(def.option, def.schema.default);
      if (name === 'language' && (value === '' || value === null || value === undefined)) value = 'en_US';
      data[name] = this.prepareValue(value, def.schema);
    }
    return new RestResponse(data);
  }

  /**
   * update_item(). Unlike WordPress, which updates the options one by one and can fail half-way (a null for
   * a setting whose stored value is invalid, after the settings before it were written), every check is
   * made first and the options are written in one transaction: a request changes all it names or nothing.
   */
  private async updateItem(request: RestRequest): Promise<RestResponse> {
    const params = request.getParams();
    const changes: Array<{ option: string; value: unknown }> = [];
    for (const [name, def] of Object.entries(SETTINGS)) {
      if (!Object.hasOwn(params, name)) continue;
      const value = request.get(name);
      if (value === null) {
        const stored = await this.ctx.options.get(def.option, false);
        if (validateValueFromSchema(stored, def.schema) !== true) {
          throw new RestError(
            'rest_invalid_stored_value',
            `The ${name} property has an invalid stored value, and cannot be updated to null.`,
            { status: 500 },
          );
        }
        changes.push({ option: def.option, value });
        continue;
      }
      // update_option() runs sanitize_option(): escapes the title and tagline, and so on; a value it
      // refuses leaves the stored one.
      const sanitized = sanitizeOption(def.option, value);
      if (!sanitized.keep) changes.push({ option: def.option, value: sanitized.value });
    }
    if (changes.length > 0) {
      await writeTransaction(this.ctx.db, async (trx) => {
        for (const { option, value } of changes) {
          if (value === null) await this.ctx.options.delete(option, trx);
          else await this.ctx.options.set(option, value, trx);
        }
      });
    }
    return this.getItem();
  }
}
