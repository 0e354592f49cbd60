// The control's id: zksim-mutant-none links the recipes unchanged.
namespace zksim::mutants {
extern const char* const kMutantId;
const char* const kMutantId = "none";
}  // namespace zksim::mutants
