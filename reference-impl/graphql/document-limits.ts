// Limits of a GraphQL document checked by one linear pass of graphql-js' lexer before the (recursive) parser and validators see it:
// nesting, aliases, field selections, fragments and tokens. A document over a limit is refused quickly with an error naming the limit.
import { GraphQLError, Lexer, Source, TokenKind, parse, type DocumentNode } from 'graphql';
import { LIMITS } from '../../lib/limits.js';
import { ERROR_CODES } from './schema.js';

export interface DocumentShape { tokens: number; nesting: number; aliases: number; fragments: number; spreads: number; selections: number }

/** Nesting is a depth (QUERY_TOO_DEEP); aliases, fragments and tokens are size (QUERY_TOO_COSTLY): the codes the service documents. */
const refuse = (message: string, extensions: { limit: string; max: number }) =>
  new GraphQLError(message, { extensions: { code: extensions.limit === 'nesting' ? ERROR_CODES.tooDeep : ERROR_CODES.tooCostly, ...extensions } });
const LIMIT_CODES: readonly string[] = [ERROR_CODES.tooDeep, ERROR_CODES.tooCostly];

/**
 * Counts what the limits need in one pass, stopping at the first limit crossed. An alias is a name followed by `:` directly inside a
 * selection set (not inside arguments or variable definitions, where `name:` is an argument or an input field).
 */
export function checkDocumentLimits(text: string): DocumentShape {
  const lexer = new Lexer(new Source(text));
  const open: string[] = [];
  const shape: DocumentShape = { tokens: 0, nesting: 0, aliases: 0, fragments: 0, spreads: 0, selections: 0 };
  let previous: TokenKind | undefined;
  let previousValue: string | undefined;
  for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
    if (++shape.tokens > LIMITS.graphqlMaxTokens) throw refuse(`The document has more than ${LIMITS.graphqlMaxTokens} tokens (limit graphqlMaxTokens).`, { limit: 'tokens', max: LIMITS.graphqlMaxTokens });
    switch (token.kind) {
      case TokenKind.BRACE_L: case TokenKind.PAREN_L: case TokenKind.BRACKET_L:
        open.push(token.kind);
        if (open.length > shape.nesting) shape.nesting = open.length;
        if (shape.nesting > LIMITS.graphqlMaxNesting) throw refuse(`The document nests more than ${LIMITS.graphqlMaxNesting} levels of braces, parentheses or brackets (limit graphqlMaxNesting).`, { limit: 'nesting', max: LIMITS.graphqlMaxNesting });
        break;
      case TokenKind.BRACE_R: case TokenKind.PAREN_R: case TokenKind.BRACKET_R:
        open.pop();
        break;
      case TokenKind.COLON:
        if (previous === TokenKind.NAME && open[open.length - 1] === TokenKind.BRACE_L && !open.includes(TokenKind.PAREN_L) && ++shape.aliases > LIMITS.graphqlMaxAliases) {
          throw refuse(`The document has more than ${LIMITS.graphqlMaxAliases} aliases (limit graphqlMaxAliases).`, { limit: 'aliases', max: LIMITS.graphqlMaxAliases });
        }
        break;
      case TokenKind.SPREAD:
        if (++shape.spreads > LIMITS.graphqlMaxFragmentSpreads) throw refuse(`The document has more than ${LIMITS.graphqlMaxFragmentSpreads} fragment spreads (limit graphqlMaxFragmentSpreads).`, { limit: 'fragmentSpreads', max: LIMITS.graphqlMaxFragmentSpreads });
        break;
      case TokenKind.NAME:
        // A field selection (an alias counts once, not again for the field name after its colon); graphql-js compares same-named
        // selections pairwise (OverlappingFieldsCanBeMerged), so their number is bounded.
        if (open[open.length - 1] === TokenKind.BRACE_L && !open.includes(TokenKind.PAREN_L) && previous !== TokenKind.COLON && previous !== TokenKind.SPREAD
          && previous !== TokenKind.AT && previousValue !== 'on' && ++shape.selections > LIMITS.graphqlMaxSelections) {
          throw refuse(`The document has more than ${LIMITS.graphqlMaxSelections} field selections (limit graphqlMaxSelections).`, { limit: 'selections', max: LIMITS.graphqlMaxSelections });
        }
        if (token.value === 'fragment' && open.length === 0 && previousValue !== 'on' && ++shape.fragments > LIMITS.graphqlMaxFragments) {
          throw refuse(`The document defines more than ${LIMITS.graphqlMaxFragments} fragments (limit graphqlMaxFragments).`, { limit: 'fragments', max: LIMITS.graphqlMaxFragments });
        }
        break;
    }
    previous = token.kind;
    previousValue = token.value;
  }
  return shape;
}

/** graphql-js' parse behind the limits (graphql-http's `parse` option); lexer errors stay graphql-js' own syntax errors. */
export function parseWithinLimits(source: string | Source): DocumentNode {
  const text = typeof source === 'string' ? source : source.body;
  try {
    checkDocumentLimits(text);
  } catch (e) {
    // A syntax error found while counting is reported by the parser below, with its usual message and position.
    if (e instanceof GraphQLError && LIMIT_CODES.includes(String(e.extensions?.code))) throw e;
  }
  try {
    return parse(source, { maxTokens: LIMITS.graphqlMaxTokens });
  } catch (e) {
    // Whatever the parser refuses is GRAPHQL_PARSE_FAILED, known here by where it failed (not by its message's words).
    if (e instanceof GraphQLError && !e.extensions?.code) throw new GraphQLError(e.message, { source: e.source, positions: e.positions, originalError: e, extensions: { ...e.extensions, code: ERROR_CODES.parseFailed } });
    throw e;
  }
}
