/* test_fault.c - sim/'s CUDA_CHECK keeps the first failure and goes on
 * (sim/sim_cuda_check.h), so sim/ can report it through sim_failed and the
 * app decides what to do: it never aborts. White box: the private header.
 *
 * The failing calls need no GPU: a copy from a null pointer fails with or
 * without a device (no device, no driver, or an invalid value), so the test
 * runs in CI too. Then: a CPU simulation never reports a failure.
 */
#include <string.h>

#include <cuda_runtime_api.h>

#include "sim_cuda_check.h"
#include "test_util.h"

int main(void) {
    sim_fault f = {0};
    char dst[16];
    CUDA_CHECK(&f, cudaMemcpy(dst, NULL, sizeof dst, cudaMemcpyDeviceToHost));
    const int line = __LINE__ - 1;
    CHECK(f.code != 0, "a failing call is kept (code %d)", f.code);
    char where[64];
    snprintf(where, sizeof where, "test_fault.c:%d: cudaMemcpy", line);
    CHECK(strstr(f.what, where) == f.what, "names the file, line and call: \"%s\"", f.what);
    CHECK(strstr(f.what, cudaGetErrorName((cudaError_t)f.code)) != NULL, "names the error: %s",
          f.what);
    const sim_fault first = f;
    CUDA_CHECK(&f, cudaMemset(NULL, 0, 1)); /* a later failure: a consequence, not kept */
    CHECK(f.code == first.code && !strcmp(f.what, first.what), "the first failure stays");
    cudaGetLastError();

    sim_fault ok = {0};
    int version = 0;
    CUDA_CHECK(&ok, cudaRuntimeGetVersion(&version)); /* succeeds without a device too */
    CHECK(ok.code == 0 && ok.what[0] == 0, "a call that succeeds leaves no fault");

    sim *s = test_sim((sim_desc){.body_count = 100, .backend = SIM_BACKEND_CPU});
    sim_step(s, 2);
    sim_error err = {0};
    CHECK(!sim_failed(s, &err), "the CPU backend never fails: %s", err.message);
    sim_destroy(s);
    return test_exit("test_fault");
}
