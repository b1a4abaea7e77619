#!/bin/bash
# A Connect Four engine for benchmarks: sleeps DELAY seconds, then drops into the first column that is
# not full. It costs next to no CPU, so a benchmark measures the harness, not the cores.
# Usage: sleepy_connect4.sh DELAY WxH PLAYER BOARD SECONDS
delay=$1 size=$2 player=$3 board=$4
width=${size%x*} height=${size#*x}
sleep "$delay"
for ((column = 0; column < width; column++)); do
    [[ ${board:column:1} == . ]] || continue
    for ((row = height - 1; row >= 0; row--)); do
        cell=$((row * width + column))
        if [[ ${board:cell:1} == . ]]; then
            echo "$((column + 1)) ${board:0:cell}${player}${board:cell+1}"
            exit 0
        fi
    done
done
echo "no legal move in $board" >&2
exit 1
