/**
 * Response data already serialised: a controller that keeps the JSON of its items (a cache of prepared
 * items) hands the text over instead of objects, and the server joins the texts instead of serialising
 * them again. Anything else that serialises such data still gets the same JSON (`toJSON`).
 */
export class RawJson {
  readonly json: string;

  constructor(json: string) {
    this.json = json;
  }

  toJSON(): unknown {
    return JSON.parse(this.json);
  }
}

/** JSON.stringify() of response data, with the RawJson items (top level or in a top-level array) as they are. */
export function stringifyResponseData(data: unknown): string {
  if (data instanceof RawJson) return data.json;
  if (Array.isArray(data) && data.some((item) => item instanceof RawJson)) {
    const parts: string[] = [];
    for (const item of data) parts.push(item instanceof RawJson ? item.json : (JSON.stringify(item) ?? 'null'));
    return `[${parts.join(',')}]`;
  }
  return JSON.stringify(data);
}
