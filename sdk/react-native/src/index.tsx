export { ServiceVerification, type ServiceVerificationProps } from './ServiceVerification';
export { SdkError, type SdkErrorCode, type VerificationResult, type StepChange, type CustomizationInput } from '../../core/src';
