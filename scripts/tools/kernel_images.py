#!/usr/bin/env python3
"""The device code in CUDA objects and libraries: which machine code (ELF for sm_XY) and PTX
(compute_XY) each holds, and on which compute capabilities it loads — what `cuobjdump --list-elf
--list-ptx` lists, read from the fat binaries themselves (the `.nv_fatbin` sections), so that a
machine whose CUDA install has no cuobjdump can check a build too.

    scripts/tools/kernel_images.py build/libfivsim_batch.a --loads 8.0 8.6 8.9 9.0 --loads-not 7.5

Prints one line per image kind and architecture, then one per capability asked about; exits 1
where a capability named by --loads has no image that loads on it (or one named by --loads-not
has), 2 on a file it cannot read.

Loading follows NVIDIA's compatibility rules (CUDA C Programming Guide, "Binary Compatibility" and
"PTX Compatibility"): machine code for sm_XY runs on X.Z with Z >= Y; PTX for compute_XY is
compiled by the driver for any capability >= X.Y.
"""
import argparse
import os
import struct
import subprocess
import sys
import tempfile

FATBIN_MAGIC = 0xBA55ED50
KIND_PTX, KIND_ELF = 1, 2


def fatbin_sections(path):
    """The bytes of every .nv_fatbin section of an object, or of each member of an archive."""
    with tempfile.TemporaryDirectory() as tmp:
        members = [path]
        if path.endswith(".a"):
            subprocess.run(["ar", "x", os.path.abspath(path)], cwd=tmp, check=True)
            members = [os.path.join(tmp, m) for m in sorted(os.listdir(tmp))]
        for member in members:
            out = os.path.join(tmp, "fatbin.bin")
            done = subprocess.run(["objcopy", "-O", "binary", "--only-section=.nv_fatbin", member, out],
                                  capture_output=True)
            if done.returncode != 0 or not os.path.exists(out):
                continue
            with open(out, "rb") as f:
                data = f.read()
            os.remove(out)
            if data:
                yield os.path.basename(member), data


def images(data):
    """(kind, arch) of each image of the fat binaries in a section: kind 'elf' or 'ptx', arch 80 for sm_80."""
    at = 0
    while at + 16 <= len(data):
        magic, _version, header_size, fat_size = struct.unpack_from("<IHHQ", data, at)
        if magic != FATBIN_MAGIC:
            # fat binaries are 8-byte aligned within the section
            at += 8
            continue
        entry, end = at + header_size, at + header_size + fat_size
        while entry + 32 <= end:
            kind, _flags, entry_header, size = struct.unpack_from("<HHIQ", data, entry)
            arch = struct.unpack_from("<I", data, entry + 0x1C)[0]
            if kind in (KIND_PTX, KIND_ELF):
                yield ("ptx" if kind == KIND_PTX else "elf"), arch
            if entry_header == 0:
                break
            entry += entry_header + size
        at = end


def loads(capability, found):
    major, minor = (int(x) for x in capability.split("."))
    for kind, arch in found:
        a_major, a_minor = divmod(arch, 10)
        if kind == "elf" and a_major == major and a_minor <= minor:
            return f"sm_{arch} machine code"
        if kind == "ptx" and (a_major, a_minor) <= (major, minor):
            return f"compute_{arch} PTX (compiled by the driver)"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", help="objects (.o) or static libraries (.a) built by nvcc")
    ap.add_argument("--loads", nargs="*", default=[], metavar="X.Y", help="capabilities that must load")
    ap.add_argument("--loads-not", nargs="*", default=[], metavar="X.Y", help="capabilities that must not")
    args = ap.parse_args()
    found = set()
    for path in args.files:
        if not os.path.isfile(path):
            print(f"kernel_images.py: {path}: no such file", file=sys.stderr)
            return 2
        for _member, data in fatbin_sections(path):
            found.update(images(data))
    if not found:
        print("kernel_images.py: no device code in " + " ".join(args.files), file=sys.stderr)
        return 1
    for kind, arch in sorted(found):
        print(f"{kind} {'sm' if kind == 'elf' else 'compute'}_{arch}")
    ok = True
    for cap in args.loads:
        how = loads(cap, found)
        print(f"{cap}: {'loads: ' + how if how else 'NO IMAGE LOADS'}")
        ok &= how is not None
    for cap in args.loads_not:
        how = loads(cap, found)
        print(f"{cap}: {'loads (it should not): ' + how if how else 'no image loads, as expected'}")
        ok &= how is None
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
