import { analyticsBackend } from '../../helpers/analytics-backends.ts';
import { describeStoreProperties } from './store-properties.ts';

describeStoreProperties(analyticsBackend('embedded'));
