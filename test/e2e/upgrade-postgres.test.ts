// Upgrading a slice in a generated app on PostgreSQL (test/e2e/support/upgrade-scenario.ts).
import { describeUpgrade } from './support/upgrade-scenario.js';

describeUpgrade('postgres');
