/**
 * Comparisons with integers wider than PostgreSQL's `integer` columns, compiled so that they cannot fail.
 *
 * PostgreSQL types a bound parameter by what it is compared with: in `id = $1` against an `integer` (serial)
 * column, `$1` is an integer too, and a value past 2^31 - 1 makes the whole statement fail ("value ... is out
 * of range for type integer", SQLSTATE 22003) instead of matching nothing. SQLite's integers are 64-bit, and
 * WordPress's ids bigint: there such a value is only one that no row holds. With this plugin a comparison
 * (`=`, `<>`, `<`, `in`, `not in`, ...) whose operand is a parameter holding such an integer casts that
 * parameter, `cast($1 as bigint)` (or `numeric` past 64 bits), so PostgreSQL compares across the two types,
 * with the cross-type operators of the integer B-tree family: an index on the column still serves it.
 * Parameters in range are left as they are, so the statements most requests send are unchanged. Values
 * written into a column (an insert's values, an update's `set`) are not comparisons and stay as they are:
 * PostgreSQL still refuses one that the column cannot hold.
 *
 * The cast depends on the value, so it is decided when a query compiles. A statement compiled once and run
 * again with other values ({@link runShape}) keeps one compiled statement per set of arguments that are that
 * wide (which ones, and whether bigint or numeric), compiled with {@link compileResolvingValues} telling the
 * plugin which values its placeholders stand for; calls without such an argument share the plain statement.
 */
import {
  BinaryOperationNode,
  CastNode,
  DataTypeNode,
  type KyselyPlugin,
  type OperationNode,
  OperationNodeTransformer,
  OperatorNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  PrimitiveValueListNode,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
  ValueListNode,
  ValueNode,
} from 'kysely';

const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;
/** 2^63: the first integer a bigint cannot hold (and exactly representable as a double). */
const INT64_LIMIT = 2 ** 63;

/** The comparison operators PostgreSQL has cross-type integer operators for. */
const COMPARISONS = new Set(['=', '==', '!=', '<>', '<', '<=', '>', '>=', 'in', 'not in']);

/** While a {@link runShape} statement compiles: what each of its placeholder values stands for. */
let resolveValue: ((value: unknown) => unknown) | undefined;

/**
 * Runs `compile` (which compiles a query synchronously) with `resolve` telling the plugin the value a
 * parameter of the query stands for (a placeholder's argument), so the casts follow those values.
 */
export function compileResolvingValues<T>(resolve: (value: unknown) => unknown, compile: () => T): T {
  const previous = resolveValue;
  resolveValue = resolve;
  try {
    return compile();
  } finally {
    resolveValue = previous;
  }
}

/** Whether `value` is an integer an `integer` (int4) column cannot hold. */
export function isWiderThanInt32(value: unknown): boolean {
  if (typeof value === 'bigint') return value < BigInt(INT32_MIN) || value > BigInt(INT32_MAX);
  return typeof value === 'number' && Number.isInteger(value) && (value < INT32_MIN || value > INT32_MAX);
}

/** The type the plugin compares `value` as: `bigint` or `numeric` for an integer wider than 32 bits, else undefined. */
export function wideCastType(v: unknown): 'bigint' | 'numeric' | undefined {
  if (!isWiderThanInt32(v)) return undefined;
  if (typeof v === 'bigint') return v >= -(2n ** 63n) && v < 2n ** 63n ? 'bigint' : 'numeric';
  return Math.abs(v as number) < INT64_LIMIT ? 'bigint' : 'numeric';
}

function castTypeOf(value: unknown): 'bigint' | 'numeric' | undefined {
  return wideCastType(resolveValue ? resolveValue(value) : value);
}

function castIfWide(node: OperationNode): OperationNode {
  if (!ValueNode.is(node) || node.immediate) return node;
  const type = castTypeOf(node.value);
  return type ? CastNode.create(node, DataTypeNode.create(type)) : node;
}

function castListIfWide(node: OperationNode): OperationNode {
  if (PrimitiveValueListNode.is(node)) {
    if (!node.values.some((v) => castTypeOf(v) !== undefined)) return node;
    return ValueListNode.create(node.values.map((v) => castIfWide(ValueNode.create(v))));
  }
  if (ValueListNode.is(node)) {
    const values = node.values.map(castIfWide);
    return values.some((v, i) => v !== node.values[i]) ? ValueListNode.create(values) : node;
  }
  return castIfWide(node);
}

class WideComparisonTransformer extends OperationNodeTransformer {
  protected override transformBinaryOperation(node: BinaryOperationNode): BinaryOperationNode {
    const out = super.transformBinaryOperation(node);
    if (!OperatorNode.is(out.operator) || !COMPARISONS.has(out.operator.operator)) return out;
    const left = castIfWide(out.leftOperand);
    const right = castListIfWide(out.rightOperand);
    if (left === out.leftOperand && right === out.rightOperand) return out;
    return BinaryOperationNode.create(left, out.operator, right);
  }
}

/**
 * The Kysely plugin for a PostgreSQL database whose integer columns are 32-bit: comparisons with wider
 * integers match nothing (or everything, for `<>` and `not in`) instead of failing. See the module comment.
 */
export class WideIntegerComparisonsPlugin implements KyselyPlugin {
  readonly #transformer = new WideComparisonTransformer();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.#transformer.transformNode(args.node, args.queryId);
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
