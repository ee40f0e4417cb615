# env.sh - sourced by the build scripts: puts nvcc on PATH when the CUDA
# Toolkit lives in /usr/local/cuda (NVIDIA's installers put it there).
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
    export PATH="/usr/local/cuda/bin:$PATH"
fi
