// The model lives with the domain's reply shapes (src/domain/leads/contactability-shape.ts).
export { CallingRule, ConsentEvidence, Contactability } from '../../domain/leads/contactability-shape'
