// A schema built from another SDL text (the graphql.schema seam edits the printed SDL), with the resolvers and scalars of the schema it came from, by name.
import { buildSchema, isObjectType, isScalarType, type GraphQLScalarType, type GraphQLSchema } from 'graphql';

/**
 * The schema of `sdl`, resolved as `schema` is: every field keeps its resolver and every custom scalar its parsing where `sdl` still
 * has them under the same name; what the text removed or renamed resolves by default (null).
 */
export function reshaped(schema: GraphQLSchema, sdl: string): GraphQLSchema {
  const out = buildSchema(sdl);
  for (const type of Object.values(out.getTypeMap())) {
    const before = schema.getType(type.name);
    if (!before || before === type) continue;
    if (isObjectType(type) && isObjectType(before)) {
      const fields = before.getFields();
      for (const [name, field] of Object.entries(type.getFields())) if (fields[name]?.resolve) field.resolve = fields[name].resolve;
    } else if (isScalarType(type) && isScalarType(before)) {
      const s = type as { -readonly [K in keyof GraphQLScalarType]: GraphQLScalarType[K] };
      s.serialize = before.serialize; s.parseValue = before.parseValue; s.parseLiteral = before.parseLiteral;
    }
  }
  return out;
}
