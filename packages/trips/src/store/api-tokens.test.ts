import { testDialects } from '@svc/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiToken, listApiTokens } from './api-tokens.ts';
import { createFleet } from './fleets.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from './migrations.ts';
import type { TripsDatabase } from './open-trips-database.ts';

describe.each(testDialects())('API tokens on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    const fleets = Array.from({ length: 12 }, (_, i) => `fleet_region_${String(i + 1).padStart(2, '0')}`);
    beforeAll(async () => {
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      for (const [i, fleetId] of fleets.entries()) {
        await createFleet(database.db, { name: `Acme Logistics Region ${i + 1}`, fleetId });
      }
    });
    afterAll(async () => {
      await database?.close();
    });

    it('names a token over many fleets after as many fleets as fit when no owner is given', async () => {
      const { token } = await createApiToken(database.db, { environment: 'sandbox', fleets, admin: true });
      expect(token.fleets).toEqual(fleets);
      expect(token.owner.length).toBeLessThanOrEqual(200);
      expect(token.owner).toMatch(/^Acme Logistics Region 1, Acme Logistics Region 2, .+ and \d+ more$/);
      const listed = (await listApiTokens(database.db)).find((t) => t.tokenId === token.tokenId);
      expect(listed?.owner).toBe(token.owner);

      const few = await createApiToken(database.db, { environment: 'sandbox', fleets: fleets.slice(0, 2) });
      expect(few.token.owner).toBe('Acme Logistics Region 1, Acme Logistics Region 2');
    });

    it('still refuses an owner given explicitly that is too long', async () => {
      await expect(
        createApiToken(database.db, { environment: 'sandbox', fleets: fleets.slice(0, 1), owner: 'x'.repeat(201) }),
      ).rejects.toThrow('token owner must be 1-200 characters');
    });
  });
});
