// GraphQL validation rules of the service: query depth and cost limits (GQL-LIMIT-01/02) with clear errors; introspection fields are exempt.
import {
  GraphQLError, Kind, getNamedType, isObjectType, isInterfaceType,
  type ASTVisitor, type FieldNode, type FragmentDefinitionNode, type GraphQLNamedType, type GraphQLSchema, type SelectionSetNode, type ValidationContext,
} from 'graphql';
import { LIMITS } from '../../lib/limits.js';
import { ERROR_CODES } from './schema.js';

type Fragments = Record<string, FragmentDefinitionNode>;
const isIntrospection = (f: FieldNode) => f.name.value.startsWith('__');

/**
 * Deepest field nesting below a selection set; a top-level field has depth 1. Each fragment is measured once (memo), so a document
 * whose fragments spread each other many times costs its size, not the size of its expansion (issue 14, item 7).
 */
export function depthOf(set: SelectionSetNode, fragments: Fragments, seen = new Set<string>(), memo = new Map<string, number>()): number {
  let max = 0;
  for (const s of set.selections) {
    if (s.kind === Kind.FIELD) {
      if (!isIntrospection(s)) max = Math.max(max, 1 + (s.selectionSet ? depthOf(s.selectionSet, fragments, seen, memo) : 0));
    } else if (s.kind === Kind.INLINE_FRAGMENT) {
      max = Math.max(max, depthOf(s.selectionSet, fragments, seen, memo));
    } else {
      const name = s.name.value;
      const fragment = fragments[name];
      // A fragment cycle is reported by graphql-js' own rule; `seen` only keeps this walk finite.
      if (!fragment || seen.has(name)) continue;
      let d = memo.get(name);
      if (d === undefined) {
        seen.add(name);
        d = depthOf(fragment.selectionSet, fragments, seen, memo);
        seen.delete(name);
        memo.set(name, d);
      }
      max = Math.max(max, d);
    }
  }
  return max;
}

/** Estimated cost: every field counts 1, and what is selected below a paged field counts once per requested item
 * (`first`, its default when omitted, its maximum when given by a variable). Fragments are costed once each (memo). */
export function costOf(schema: GraphQLSchema, set: SelectionSetNode, parent: GraphQLNamedType | undefined, fragments: Fragments, seen = new Set<string>(), memo = new Map<string, number>()): number {
  let total = 0;
  for (const s of set.selections) {
    if (s.kind === Kind.INLINE_FRAGMENT) {
      total += costOf(schema, s.selectionSet, (s.typeCondition && schema.getType(s.typeCondition.name.value)) || parent, fragments, seen, memo);
      continue;
    }
    if (s.kind === Kind.FRAGMENT_SPREAD) {
      const name = s.name.value;
      const fragment = fragments[name];
      if (!fragment || seen.has(name)) continue;
      let c = memo.get(name);
      if (c === undefined) {
        seen.add(name);
        c = costOf(schema, fragment.selectionSet, schema.getType(fragment.typeCondition.name.value) ?? parent, fragments, seen, memo);
        seen.delete(name);
        memo.set(name, c);
      }
      total += c;
      continue;
    }
    if (isIntrospection(s)) continue;
    const def = parent && (isObjectType(parent) || isInterfaceType(parent)) ? parent.getFields()[s.name.value] : undefined;
    let times = 1;
    if (def?.args.some((a) => a.name === 'first')) {
      const arg = s.arguments?.find((a) => a.name.value === 'first');
      times = !arg ? LIMITS.graphqlPageDefault : arg.value.kind === Kind.INT ? Number(arg.value.value) : LIMITS.graphqlPageMax;
    }
    const below = s.selectionSet ? costOf(schema, s.selectionSet, def ? getNamedType(def.type) : undefined, fragments, seen, memo) : 0;
    total += 1 + Math.max(0, times) * below;
  }
  return total;
}

function fragmentsOf(ctx: ValidationContext): Fragments {
  const out: Fragments = {};
  for (const def of ctx.getDocument().definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) out[def.name.value] = def;
  return out;
}

export function depthLimitRule(max: number = LIMITS.graphqlMaxDepth) {
  return (ctx: ValidationContext): ASTVisitor => ({
    OperationDefinition(op) {
      const depth = depthOf(op.selectionSet, fragmentsOf(ctx));
      if (depth > max) {
        ctx.reportError(new GraphQLError(`Query depth ${depth} exceeds the maximum depth of ${max}.`, { nodes: [op], extensions: { code: ERROR_CODES.tooDeep, depth, maxDepth: max } }));
      }
    },
  });
}

export function costLimitRule(max: number = LIMITS.graphqlMaxCost) {
  return (ctx: ValidationContext): ASTVisitor => ({
    OperationDefinition(op) {
      const schema = ctx.getSchema();
      const root = op.operation === 'mutation' ? schema.getMutationType() : op.operation === 'subscription' ? schema.getSubscriptionType() : schema.getQueryType();
      const cost = costOf(schema, op.selectionSet, root ?? undefined, fragmentsOf(ctx));
      if (cost > max) {
        ctx.reportError(new GraphQLError(`Query cost ${cost} exceeds the maximum cost of ${max} (every field counts 1, times the page size of the connections above it).`, { nodes: [op], extensions: { code: ERROR_CODES.tooCostly, cost, maxCost: max } }));
      }
    },
  });
}

/** Deviation support: a rule that refuses introspection (GQL-INTRO-01/02). */
export function noIntrospectionRule(ctx: ValidationContext): ASTVisitor {
  return {
    Field(node) {
      if (node.name.value === '__schema' || node.name.value === '__type') ctx.reportError(new GraphQLError('introspection is disabled', { nodes: [node] }));
    },
  };
}

/** Deviation support: a rule that refuses mutation operations (GQL-HTTP-03). */
export function noMutationRule(ctx: ValidationContext): ASTVisitor {
  return {
    OperationDefinition(node) {
      if (node.operation === 'mutation') ctx.reportError(new GraphQLError('mutations are not accepted on this endpoint', { nodes: [node] }));
    },
  };
}
