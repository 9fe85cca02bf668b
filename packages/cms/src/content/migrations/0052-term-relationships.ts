import type { Kysely, Migration } from 'kysely';

/**
 * Terms assigned to posts (wp_term_relationships). Both directions are indexed: a post's terms, and a
 * term's posts (category and tag filters).
 */
export const m0052TermRelationships: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('term_relationships')
      .addColumn('object_id', 'integer', (c) => c.notNull().references('posts.id').onDelete('cascade'))
      .addColumn('term_id', 'integer', (c) => c.notNull().references('terms.id').onDelete('cascade'))
      .addColumn('term_order', 'integer', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('term_relationships_pk', ['object_id', 'term_id'])
      .execute();
    await db.schema
      .createIndex('term_relationships_term')
      .on('term_relationships')
      .columns(['term_id', 'object_id'])
      .execute();
  },
  // biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
  async down(db: Kysely<any>) {
    await db.schema.dropTable('term_relationships').execute();
  },
};
