#!/bin/sh
# The training that produced the `net` preset (gnoming_sim/kernel/policy/net_weights.json): its placement head (1-3,
# refitted in 7-8, 9 and 11, and 13-14, each time with targets of the net before it) and its draw-source head (4-6,
# refitted in 10 and 12).
# `make train-net` runs it from the repository root and installs the weights.
# 1. rollout targets of expert (64 rollouts per answer) at 2-7 players, 6 chunks of 150 rounds per table size,
#    each chunk under one rules variant (half published); chunks in tuning/net/data/ (not committed; a chunk already
#    there is reused, so delete the folder for a clean run); log: tuning/net/gather.jsonl
# 2. rollout targets of learned (32 rollouts, the stronger but 14x dearer teacher; the comparison is in this folder's history),
#    2 chunks of 100 rounds per table size, another seed; chunks in tuning/net/data-learned/
# 3. the fit of both (scipy L-BFGS-B) and the validation check; weights and curve in tuning/net/fit-both/
# 4. round 1's fit installed as the teacher of the draw-source targets (its placements, learned's draw source; the
#    gather names it by sha256 in tuning/net/data-source/settings.json, committed as tuning/net/source/settings.json)
# 5. draw-source targets: 64 rollouts of that net, every seat net, 6 chunks of 150 rounds per table size, seed 4;
#    chunks in tuning/net/data-source/ (not committed)
# 6. the draw-source head's fit beside round 1's placement head; weights and curve in tuning/net/fit-source/
# 7. that net (round 1's placement head, the draw-source head) installed as the teacher of a third placement gather:
#    64 rollouts of it, every seat net, 3 chunks of 150 rounds per table size, seed 5; chunks in tuning/net/data-net2/
#    (not committed), log and settings (the teacher's sha256) in tuning/net/net-teacher-2/
# 8. the placement head refitted on steps 1, 2 and 7's targets beside step 6's draw-source head; weights and curve in
#    tuning/net/fit-net2/
# 9. that net (round 3) installed as the teacher of a fourth placement gather: 64 rollouts of it, 4 chunks of 150 rounds
#    per table size, seed 6; chunks in tuning/net/data-net3/, log and settings in tuning/net/net-teacher-3/
# 10. the same net teaches a second draw-source gather: 64 rollouts, 6 chunks of 150 rounds, seed 7; chunks in
#    tuning/net/data-source2/, log and settings in tuning/net/source-2/
# 11. the placement head refitted on the targets of the searches over learned and over the net (steps 2, 7 and 9;
#    round 1's targets of expert left out, chosen on validation deals) beside step 6's draw-source head:
#    tuning/net/fit-net3/
# 12. the draw-source head refitted on step 10's targets beside step 11's placement head: tuning/net/fit-source2/
# 13. that net installed as the teacher of a fifth placement gather: 3 chunks of 150 rounds, seed 8; chunks in
#    tuning/net/data-net4/, log and settings in tuning/net/net-teacher-4/
# 14. the placement head refitted on every placement gather (steps 1, 2, 7, 9 and 13: without step 1's targets of
#    expert it played as strongly under the published rules but lengthened its rounds under a bonus of 10 and was
#    weaker there, on validation deals) beside step 12's draw-source head; weights and curve in tuning/net/fit-net4/,
#    copied to tuning/net/ until step 16
# 15. the placement gathers of steps 1, 2, 7, 9 and 13 widened to the layout features (the own layout after each
#    answer, line by line): each replayed without its rollouts by the player that gathered it (the same decisions,
#    checked against the stored inputs) and written with the new inputs and the stored rollout values into
#    tuning/net/data*-x/ (not committed)
# 16. the placement head refitted on those rows beside step 12's draw-source head; weights and curve in
#    tuning/net/fit-net5/, copied to tuning/net/ (`make train-net` installs them)
set -eu
start=$(date +%s)
{
/usr/bin/time -v python -m gnoming_sim.tune.net_train --out tuning/net --data tuning/net/data --teacher expert \
    --budget 64 --players 2,3,4,5,6,7 --chunks 6 --chunk 150 --p-sample 0.3 --seed 1 --gather-only
/usr/bin/time -v python -m gnoming_sim.tune.net_train --out tuning/net/learned-teacher --data tuning/net/data-learned \
    --teacher learned --budget 32 --players 2,3,4,5,6,7 --chunks 2 --chunk 100 --p-sample 0.3 --seed 2 --gather-only
/usr/bin/time -v python -m gnoming_sim.tune.net_train --out tuning/net/fit-both --data tuning/net/data,tuning/net/data-learned \
    --fit-only --maxiter 150 --seed 1
cp tuning/net/fit-both/weights.json gnoming_sim/kernel/policy/net_weights.json
/usr/bin/time -v python -m gnoming_sim.tune.net_train --out tuning/net/source --data tuning/net/data-source --head source \
    --teacher net --budget 64 --players 2,3,4,5,6,7 --chunks 6 --chunk 150 --p-sample 0.3 --seed 4 --gather-only
/usr/bin/time -v python -m gnoming_sim.tune.net_train --out tuning/net/fit-source --data tuning/net/data-source --head source \
    --fit-only --maxiter 300 --seed 1 --placement-weights tuning/net/fit-both/weights.json
cp tuning/net/fit-source/weights.json gnoming_sim/kernel/policy/net_weights.json
/usr/bin/time -v python -m gnoming_sim.tune.net_train --out tuning/net/net-teacher-2 --data tuning/net/data-net2 --teacher net \
    --budget 64 --players 2,3,4,5,6,7 --chunks 3 --chunk 150 --p-sample 0.3 --seed 5 --gather-only
/usr/bin/time -v python -m gnoming_sim.tune.net_train --out tuning/net/fit-net2 \
    --data tuning/net/data,tuning/net/data-learned,tuning/net/data-net2 \
    --fit-only --maxiter 300 --seed 1 --source-weights tuning/net/fit-source/weights.json
cp tuning/net/fit-net2/weights.json gnoming_sim/kernel/policy/net_weights.json
/usr/bin/time -v python -m gnoming_sim.tune.net_train --out tuning/net/net-teacher-3 --data tuning/net/data-net3 --teacher net \
    --budget 64 --players 2,3,4,5,6,7 --chunks 4 --chunk 150 --p-sample 0.3 --seed 6 --gather-only
/usr/bin/time -v python -m gnoming_sim.tune.net_train --out tuning/net/source-2 --data tuning/net/data-source2 --head source \
    --teacher net --budget 64 --players 2,3,4,5,6,7 --chunks 6 --chunk 150 --p-sample 0.3 --seed 7 --gather-only
/usr/bin/time -v python -m gnoming_sim.tune.net_train --out tuning/net/fit-net3 \
    --data tuning/net/data-learned,tuning/net/data-net2,tuning/net/data-net3 \
    --fit-only --maxiter 300 --seed 1 --source-weights tuning/net/fit-source/weights.json
/usr/bin/time -v python -m gnoming_sim.tune.net_train --out tuning/net/fit-source2 --data tuning/net/data-source2 --head source \
    --fit-only --maxiter 300 --seed 1 --placement-weights tuning/net/fit-net3/weights.json
cp tuning/net/fit-source2/weights.json gnoming_sim/kernel/policy/net_weights.json
/usr/bin/time -v python -m gnoming_sim.tune.net_train --out tuning/net/net-teacher-4 --data tuning/net/data-net4 --teacher net \
    --budget 64 --players 2,3,4,5,6,7 --chunks 3 --chunk 150 --p-sample 0.3 --seed 8 --gather-only
/usr/bin/time -v python -m gnoming_sim.tune.net_train --out tuning/net/fit-net4 \
    --data tuning/net/data,tuning/net/data-learned,tuning/net/data-net2,tuning/net/data-net3,tuning/net/data-net4 \
    --fit-only --maxiter 300 --seed 1 --source-weights tuning/net/fit-source2/weights.json
W="python -m gnoming_sim.tune.net_train --out tuning/net/fit-net5"
/usr/bin/time -v $W --widen tuning/net/data --data tuning/net/data-x
/usr/bin/time -v $W --widen tuning/net/data-learned --data tuning/net/data-learned-x
/usr/bin/time -v $W --widen tuning/net/data-net2 --data tuning/net/data-net2-x --teacher-weights tuning/net/fit-source/weights.json
/usr/bin/time -v $W --widen tuning/net/data-net3 --data tuning/net/data-net3-x --teacher-weights tuning/net/fit-net2/weights.json
/usr/bin/time -v $W --widen tuning/net/data-net4 --data tuning/net/data-net4-x --teacher-weights tuning/net/fit-source2/weights.json
/usr/bin/time -v python -m gnoming_sim.tune.net_train --out tuning/net/fit-net5 \
    --data tuning/net/data-x,tuning/net/data-learned-x,tuning/net/data-net2-x,tuning/net/data-net3-x,tuning/net/data-net4-x \
    --fit-only --maxiter 300 --seed 1 --source-weights tuning/net/fit-source2/weights.json
} 2> tuning/net/time.txt | tee tuning/net/run.out
cp tuning/net/fit-net5/weights.json tuning/net/fit-net5/log.csv tuning/net/
echo "wall: $(( $(date +%s) - start )) s" | tee -a tuning/net/run.out
