import { testDialects } from '@svc/platform/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiToken } from '../src/store/api-tokens.ts';
import { createFleet } from '../src/store/fleets.ts';
import { TRIPS_MIGRATION_TABLE, tripsMigrations } from '../src/store/migrations.ts';
import { claimEnvironment, type TripsDatabase } from '../src/store/open-trips-database.ts';
import { createVehicle, listVehicles, parsePlate } from '../src/store/vehicles.ts';
import { sandboxApiApp } from './fixtures/world.ts';

// What an operator and an API client are told about a plate that cannot be one: the character at fault, by its
// code point, since a Cyrillic "А" looks like the Latin "A" the rule asks for; and, for a plate already taken,
// the fleet that holds it.
describe.each(testDialects())('plates as operators and clients write them, on $label', (dialect) => {
  describe.skipIf(dialect.skip)(dialect.name, () => {
    let database: TripsDatabase;
    let app: FastifyInstance;
    let token: string;
    /** A GET with the fleet's token, as an API client sends it. */
    const get = (url: string) => app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });

    beforeAll(async () => {
      database = await dialect.open(tripsMigrations, { migrationTable: TRIPS_MIGRATION_TABLE });
      await claimEnvironment(database.db, 'sandbox', database.location);
      await createFleet(database.db, { name: 'Depot North', fleetId: 'fleet_north' });
      await createFleet(database.db, { name: 'Depot South', fleetId: 'fleet_south' });
      await createVehicle(database.db, { fleetId: 'fleet_north', plate: 'ab 123 cd' });
      token = (await createApiToken(database.db, { environment: 'sandbox', fleets: ['fleet_north'] })).secret;
      app = await sandboxApiApp(database, Date.now());
    });
    afterAll(async () => {
      await app?.close();
      await database?.close();
    });

    it('names the character a plate may not hold, by its code point, when the CLI refuses it', () => {
      const refusal = (plate: string) => {
        try {
          parsePlate(plate);
        } catch (err) {
          return (err as Error).message;
        }
        throw new Error(`${plate} was taken`);
      };
      // Cyrillic А, В, С: every character looks like one the rule allows.
      expect(refusal('А123ВС')).toBe(
        'plate "А123ВС" is invalid: 1-20 characters, Latin letters, digits, spaces, dots or dashes, starting with a letter or digit (U+0410 "А" is not a Latin letter, a digit 0-9, a space, a dot or a dash)',
      );
      // Greek, as Cyrillic, is another script; accented Latin letters are letters of a plate (see below).
      expect(refusal('ΑΒ 123')).toContain('(U+0391 "Α" is not a Latin letter, a digit 0-9, a space, a dot or a dash)');
      expect(parsePlate('mü-ab 123')).toBe('MÜ-AB 123');
      // A control character is named by its code point alone: printed, it would not show.
      expect(refusal('AB\u200B12')).toContain('(U+200B is not a Latin letter, a digit 0-9, a space, a dot or a dash)');
      // A plate of allowed characters that breaks another part of the rule is told the rule, as before.
      expect(refusal('-AB')).toBe(
        'plate "-AB" is invalid: 1-20 characters, Latin letters, digits, spaces, dots or dashes, starting with a letter or digit',
      );
    });

    it('names the fleet that holds a plate another fleet tries to register, and stores nothing', async () => {
      await expect(createVehicle(database.db, { fleetId: 'fleet_south', plate: 'AB 123 CD' })).rejects.toThrow(
        'a vehicle with plate AB 123 CD already exists in fleet fleet_north: a plate is unique across the fleets of an environment',
      );
      await expect(createVehicle(database.db, { fleetId: 'fleet_north', plate: 'ab  123 cd ' })).rejects.toThrow(
        /^a vehicle with plate AB 123 CD already exists in fleet fleet_north$/,
      );
      expect((await listVehicles(database.db)).map((v) => [v.fleetId, v.plate])).toEqual([
        ['fleet_north', 'AB 123 CD'],
      ]);
    });

    it('answers a plate a client sent with a character no plate holds with a 400 naming it', async () => {
      for (const [url, fragment] of [
        // '+' is a space only in a query: in a path it is itself.
        ['/v1/vehicles/AB+123+CD', '(URL-encode spaces as %20); a space in the path must be sent as %20, not "+"'],
        [
          '/v1/vehicles/AB+%D0%91',
          '(URL-encode spaces as %20); U+002B "+" is not a Latin letter, a digit 0-9, a space, a dot or a dash',
        ],
        ['/v1/vehicles/%D0%90B%20123%20CD', 'U+0410 "А" is not a Latin letter, a digit 0-9, a space, a dot or a dash'],
        ['/v1/vehicles/AB%CC%88%CC%88', 'U+0308 is not a Latin letter, a digit 0-9, a space, a dot or a dash'],
        [
          '/v1/trips?vehicle=%D0%90B%20123%20CD',
          'U+0410 "А" is not a Latin letter, a digit 0-9, a space, a dot or a dash',
        ],
        ['/v1/trips?vehicle=AB%2B123', 'U+002B "+" is not a Latin letter, a digit 0-9, a space, a dot or a dash'],
      ] as const) {
        const res = await get(url);
        expect(res.statusCode, url).toBe(400);
        expect(res.json().ok, url).toBe(false);
        expect(res.json().error, url).toContain(fragment);
      }
      // The spellings of the registered plate a client may send all find it.
      for (const url of [
        '/v1/vehicles/ab%20123%20cd',
        '/v1/vehicles/%20AB%20%20123%20CD%20',
        '/v1/vehicles/AB%09123%09CD',
      ]) {
        const res = await get(url);
        expect(res.statusCode, url).toBe(200);
        expect(res.json().vehicle.plate, url).toBe('AB 123 CD');
      }
    });

    it('registers a German plate with an umlaut and finds it however a client writes the letter', async () => {
      // German plates carry Ä, Ö and Ü (MÜ: Mühldorf); a client may send the letter composed (U+00DC, NFC) or as a
      // U and a combining diaeresis (NFD, as macOS file names write it), in either case.
      await createVehicle(database.db, { fleetId: 'fleet_north', plate: 'Mü-AB 123' });
      for (const url of [
        '/v1/vehicles/M%C3%9C-AB%20123',
        '/v1/vehicles/m%C3%BC-ab%20123',
        '/v1/vehicles/MU%CC%88-AB%20123',
        '/v1/vehicles/mu%CC%88-ab%20123',
      ]) {
        const res = await get(url);
        expect(res.statusCode, url).toBe(200);
        expect(res.json().vehicle.plate, url).toBe('MÜ-AB 123');
      }
      const filtered = await get('/v1/trips?vehicle=MU%CC%88-AB%20123');
      expect(filtered.statusCode).toBe(200);
      await expect(createVehicle(database.db, { fleetId: 'fleet_north', plate: 'MU\u0308-AB 123' })).rejects.toThrow(
        /already exists in fleet fleet_north$/,
      );
    });
  });
});
