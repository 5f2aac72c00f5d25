# Readers read only what they need: a regular file over the 2 GiB input limit is refused from
# its size, before a byte is read.
# Under a sanitizer build (ATTN_SANITIZER set) the ulimit -v checks are skipped: ASan
# reserves terabytes of address space.

# ---- a regular .npy over 2 GiB: refused from its size (a sparse file: no disk used) --------
# A valid header for (536870913,) float32: 2 GiB + 4 bytes of data.
hdr="{'descr': '<f4', 'fortran_order': False, 'shape': (536870913,), }"
{ printf '\223NUMPY\001\000\166\000%s' "$hdr"; printf '%*s\n' $((117 - ${#hdr})) ''; } > "$T/big.npy"
truncate -s $((128 + 4 * 536870913)) "$T/big.npy"
for via in file stdin; do
    # (an array, not set --: this file is sourced, and run.sh's own arguments must stay)
    if [ "$via" = file ]; then args=(softmax "$T/big.npy"); name=$T/big.npy; else args=(softmax -); name="<stdin>"; fi
    if [ -z "${ATTN_SANITIZER:-}" ]; then
        ( ulimit -v 1000000; exec timeout 20 "$ATTN" "${args[@]}" ) <"$T/big.npy" >"$T/out" 2>"$T/err"; CODE=$?
    else
        timeout 60 "$ATTN" "${args[@]}" <"$T/big.npy" >"$T/out" 2>"$T/err"; CODE=$?
    fi
    ERR=$(cat "$T/err")
    expect_code 3 ".npy over 2 GiB ($via)"
    expect_err_has "attn: $name: input larger than 2 GiB is not supported" ".npy over 2 GiB ($via): the limit, not out of memory"
    expect_out_empty ".npy over 2 GiB ($via)"
done
rm -f "$T/big.npy"
