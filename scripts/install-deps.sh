#!/usr/bin/env bash
# install-deps.sh - installs what nbody needs and this machine lacks
# (Debian/Ubuntu). Packages already present are left alone, so on a
# prepared machine it does nothing and needs no network.
#
# CUDA: nvcc from PATH or /usr/local/cuda, else Debian's nvidia-cuda-toolkit.
set -euo pipefail

pkgs=(cmake pkg-config gcc g++ make libglfw3-dev libglew-dev libcglm-dev libstb-dev
      libegl-dev libgl-dev libopengl-dev xvfb xauth python3 ffmpeg
      libhdf5-dev python3-h5py # HDF5 snapshots (optional at build time; h5py for their test)
      libx11-dev) # the window survives losing its X display (optional at build time)

missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
have_nvcc() { command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; }
have_nvcc || missing+=(nvidia-cuda-toolkit)

if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install ${missing[*]}" >&2; exit 1; }
    sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
