/** Application password operations shared by the REST controller and the CLI. */
import type { ApplicationPasswordRow, ApplicationPasswordsRepository } from '../db/application-passwords-repository.ts';
import { RestError } from '../rest/errors.ts';
import {
  chunkPassword,
  generateApplicationPassword,
  hashApplicationPassword,
  newUuid,
} from './application-passwords.ts';

export interface CreatedApplicationPassword {
  row: ApplicationPasswordRow;
  /** The password, formatted in groups of four; shown once, never stored. */
  password: string;
}

/** WP_Application_Passwords::create_new_application_password(). */
export async function createApplicationPassword(
  repo: ApplicationPasswordsRepository,
  secret: string,
  input: { userId: number; name: string; appId?: string; now: Date },
): Promise<CreatedApplicationPassword> {
  const name = input.name.trim();
  if (name === '') {
    throw new RestError(
      'application_password_empty_name',
      'An application name is required to create an application password.',
      {
        status: 400,
      },
    );
  }
  if (await repo.nameExists(input.userId, name)) {
    throw new RestError('application_password_duplicate_name', 'Each application name should be unique.', {
      status: 409,
    });
  }
  const password = generateApplicationPassword();
  const row: ApplicationPasswordRow = {
    uuid: newUuid(),
    user_id: input.userId,
    name,
    app_id: input.appId ?? '',
    password_hash: hashApplicationPassword(password, secret),
    created: Math.floor(input.now.getTime() / 1000),
    last_used: null,
    last_ip: null,
  };
  await repo.insert(row);
  return { row, password: chunkPassword(password) };
}
