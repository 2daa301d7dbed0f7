// Upgrading a slice in a generated app on MySQL (test/e2e/support/upgrade-scenario.ts).
import { describeUpgrade } from './support/upgrade-scenario.js';

describeUpgrade('mysql');
