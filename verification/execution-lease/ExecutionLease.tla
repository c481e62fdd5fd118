--------------------------- MODULE ExecutionLease ---------------------------
(***************************************************************************)
(* One agent turn's execution lease, the runs that compete for it, and one *)
(* durable execution step, as implemented in examples/agent_runtime/ on    *)
(* SQLite.  One action per real transaction of the code, its guard equal   *)
(* to the code's WHERE clause and checks (see NOTES.md, code-to-action     *)
(* map).  The external effect is its own action, outside any transaction.  *)
(* Time is abstract: Expire is enabled whenever the lease is live (clocks  *)
(* drift, processes pause).  A deposed run keeps running; any run may      *)
(* crash at any point.  A run is one worker process; RunId(r) is the run   *)
(* id it writes, and two processes may write the same one (a worker        *)
(* restarted with the run id of a process that is stopped, not dead).      *)
(*                                                                         *)
(* Every guard conjunct is on its own line with its own comment, so that   *)
(* manifest.json's mutations can name it by exact text.                    *)
(***************************************************************************)
EXTENDS Naturals, Sequences

CONSTANTS
    Runs,        \* worker processes (model values); RunId(r): the run id r writes
    None,        \* lease_owner IS NULL
    MaxGen,      \* bound: claims stop once lease_generation = MaxGen
    Policies,    \* replay policies a deploy may have in force at Init
    AllowFlip    \* TRUE: a deploy may flip the tool's policy between any two steps

Policy == {"never", "always"}

ASSUME Policies \subseteq Policy /\ Policies # {}
ASSUME MaxGen \in Nat /\ AllowFlip \in BOOLEAN /\ None \notin Runs

VARIABLES
    turnStatus,  \* agent_turns.status: "open" | "needs_attention" | "done"
    owner,       \* agent_turns.lease_owner (None = NULL)
    gen,         \* agent_turns.lease_generation
    live,        \* lease_expires_at > now (abstract time)
    ended,       \* history: generations that expired or were released
    step,        \* the agent_execution_steps row of the one step
    policyNow,   \* the replay policy in force now (the deploy)
    pc,          \* per run: where its worker is
    runGen,      \* per run: the generation of the lease it holds (0: none)
    decided,     \* per run: the policy under which it decided to run the effect
    effects,     \* the outside world: every external effect, in order
    lastTx,      \* history: the last transaction, with the agent_turns row it saw
    began,       \* history: per run, what its begin_step of this lease did
    readable     \* per run: the policies in force since its claim (what it may read)

vars == <<turnStatus, owner, gen, live, ended, step, policyNow,
          pc, runGen, decided, effects, lastTx, began, readable>>

\* The run id process r writes as lease_owner and written_by (worker.py
\* --run-id).  By default each process has its own; a config may override
\* it with SharedRunId (cfg: RunId <- SharedRunId).
RunId(r) == r

\* Two processes, one run id: a worker restarted with the --run-id of a
\* process that is stopped (SIGSTOP), not dead, which may resume at any
\* time.  Only the generation tells their leases apart.
FirstRun == CHOOSE r \in Runs : TRUE
RestartedRun == CHOOSE r \in Runs \ {FirstRun} : TRUE
SharedRunId(r) == IF r = RestartedRun THEN FirstRun ELSE r

\* The effective policy of a started step: the most restrictive of the one
\* recorded on the row and the one read now ("never" beats "always").
MostRestrictive(recorded, now) ==
    IF recorded = "never" \/ now = "never" THEN "never" ELSE "always"

\* No step row yet.
NoRow == [status |-> "none", policy |-> "none", gen |-> 0, by |-> None]

\* The transactions that write the step row.
StepWrites == {"step-insert", "step-unknown", "step-rerun", "step-complete"}

\* Every transaction of begin_step (a write or a read-only decision).
BeginKinds == {"step-insert", "step-read", "step-unknown", "step-rerun"}

\* The begin_step transactions that decide to run the effect: they write a
\* started row.
RunKinds == {"step-insert", "step-rerun"}

\* What a run's begin_step decided, as the history `began` keeps it: taken
\* from the transaction it committed and the row it found, not from where
\* it sent the worker.  "run": it wrote a started row (a new row, a re-run);
\* "replay": it found the step completed and wrote no started row;
\* "no-run": any other (the row marked unknown, an unknown row left).
\* Besides: "none", no begin_step committed in this lease; "ran", the
\* process's effect ran since its decision.
Outcome(kind, found) ==
    IF kind \in RunKinds THEN "run"
    ELSE IF found = "completed" THEN "replay"
    ELSE "no-run"

\* What a transaction by run r saw, recorded independently of the action's
\* own guard: the agent_turns row as the step_write_audit trigger reads it
\* (owner, generation, live); for a claim, the turn's status; for a
\* begin_step, the policy read (SeenRead); for a begin_step or a step write, the
\* step row before it.  (Only what
\* a property reads: every other field is fixed, so the history adds few
\* states.)
Seen(kind, r) ==
    [kind |-> kind, run |-> r, id |-> RunId(r), runGen |-> runGen[r],
     owner |-> owner, leaseGen |-> gen, wasLive |-> live,
     turnBefore |-> IF kind = "claim" THEN turnStatus ELSE "none",
     stepBefore |-> IF kind \in BeginKinds \cup StepWrites THEN step ELSE NoRow,
     policyNow |-> IF kind \in BeginKinds THEN policyNow ELSE "none"]

\* What a begin_step saw, with the policy it read.
SeenRead(kind, r, p) == [Seen(kind, r) EXCEPT !.policyNow = p]

Init ==
    /\ turnStatus = "open"
    /\ owner = None
    /\ gen = 0
    /\ live = FALSE
    /\ ended = {}
    /\ step = NoRow
    /\ policyNow \in Policies
    /\ pc = [r \in Runs |-> "idle"]
    /\ runGen = [r \in Runs |-> 0]
    /\ decided = [r \in Runs |-> "none"]
    /\ effects = <<>>
    /\ lastTx = [kind |-> "none", run |-> None, id |-> None, runGen |-> 0,
                 owner |-> None, leaseGen |-> 0, wasLive |-> FALSE,
                 turnBefore |-> "none", stepBefore |-> NoRow, policyNow |-> "none"]
    /\ began = [r \in Runs |-> "none"]
    /\ readable = [r \in Runs |-> {}]

(***************************************************************************)
(* Lease transactions: examples/agent_runtime/lease.py                      *)
(***************************************************************************)

\* code: examples/agent_runtime/lease.py:24 claim
\* claim: UPDATE agent_turns SET lease_owner, lease_generation + 1, expiry
\*        WHERE id AND status = 'open' AND (lease_owner IS NULL OR lease_expires_at <= now)
Claim(r) ==
    /\ pc[r] = "idle"                              \* worker: claims between turns (run_worker)
    /\ gen < MaxGen                                \* model bound, not code
    /\ turnStatus = "open"                         \* claim: status = 'open'
    /\ (owner = None \/ ~live)                     \* claim: lease_owner IS NULL OR lease_expires_at <= now
    /\ gen' = gen + 1                              \* claim: lease_generation = lease_generation + 1
    /\ owner' = RunId(r)                           \* claim: lease_owner = :run
    /\ live' = TRUE
    /\ runGen' = [runGen EXCEPT ![r] = gen']
    /\ pc' = [pc EXCEPT ![r] = "holding"]
    /\ lastTx' = Seen("claim", r)
    /\ began' = [began EXCEPT ![r] = "none"]
    /\ readable' = [readable EXCEPT ![r] = {policyNow}]
    /\ UNCHANGED <<turnStatus, ended, step, policyNow, decided, effects>>

\* code: examples/agent_runtime/lease.py:45 renew (called by worker.py:50 Heartbeat.run)
\* renew: UPDATE agent_turns SET lease_expires_at = now + ttl
\*        WHERE id AND lease_owner = :run AND lease_generation = :gen AND lease_expires_at > now
Renew(r) ==
    /\ pc[r] \notin {"idle"}                       \* worker: the heartbeat runs while a turn runs
    /\ owner = RunId(r)                            \* renew: lease_owner = :run
    /\ gen = runGen[r]                             \* renew: lease_generation = :gen
    /\ live                                        \* renew: lease_expires_at > now (no resurrection)
    /\ live' = TRUE
    /\ lastTx' = Seen("renew", r)
    /\ UNCHANGED <<turnStatus, owner, gen, ended, step, policyNow,
                   pc, runGen, decided, effects, began, readable>>

\* code: examples/agent_runtime/lease.py:61 release (called at worker.py:139, after run_turn)
\* release: UPDATE agent_turns SET lease_owner = NULL, lease_expires_at = NULL
\*          WHERE id AND lease_owner = :run AND lease_generation = :gen
Release(r) ==
    /\ pc[r] \in {"holding", "effected", "finished"}    \* worker: release once run_turn returned
    /\ pc[r] = "effected" => ~live                  \* worker: after an effect, only once complete_step failed
    /\ owner = RunId(r)                            \* release: lease_owner = :run
    /\ gen = runGen[r]                             \* release: lease_generation = :gen
    /\ owner' = None
    /\ live' = FALSE
    /\ ended' = ended \cup {gen}
    /\ pc' = [pc EXCEPT ![r] = "idle"]
    /\ runGen' = [runGen EXCEPT ![r] = 0]
    /\ decided' = [decided EXCEPT ![r] = "none"]
    /\ lastTx' = Seen("release", r)
    \* history: forgets the lease's, but a decision to run whose effect never ran
    /\ began' = [began EXCEPT ![r] = IF began[r] = "run" THEN "run" ELSE "none"]
    /\ readable' = [readable EXCEPT ![r] = {}]
    /\ UNCHANGED <<turnStatus, gen, step, policyNow, effects>>

\* Time passes: the lease's expiry is reached.  Not a transaction.
Expire ==
    /\ live
    /\ live' = FALSE
    /\ ended' = ended \cup {gen}
    /\ UNCHANGED <<turnStatus, owner, gen, step, policyNow,
                   pc, runGen, decided, effects, lastTx, began, readable>>

(***************************************************************************)
(* Step transactions: examples/agent_runtime/steps.py                       *)
(***************************************************************************)

\* begin_step, replay decision (the anchored region, examples/agent_runtime/steps.py:66-104):
\* one branch per row state; MostRestrictive is steps.py:28 most_restrictive.
\* Each branch decides under p, the policy the worker read just before the
\* transaction (run_turn: read_policy, then begin_step).
\* no row: INSERT status 'started', policy read, generation, written_by -> run the effect
BeginInsert(r, p) ==
    /\ step.status = "none"                        \* no row: INSERT
    /\ step' = [status |-> "started", policy |-> p, gen |-> runGen[r], by |-> RunId(r)]
    /\ turnStatus' = turnStatus
    /\ pc' = [pc EXCEPT ![r] = "decided"]
    /\ decided' = [decided EXCEPT ![r] = p]
    /\ lastTx' = SeenRead("step-insert", r, p)

\* completed: return its result, the effect is not run
BeginReplayCompleted(r, p) ==
    /\ step.status = "completed"                   \* completed: replay
    /\ pc' = [pc EXCEPT ![r] = "finished"]         \* completed: replayed, effect not run
    /\ decided' = decided
    /\ UNCHANGED <<step, turnStatus>>
    /\ lastTx' = SeenRead("step-read", r, p)

\* unknown: the effect is not run, the turn needs a person.  Unreachable here: a
\* row turns unknown in the transaction that closes the turn, and Claim needs
\* 'open'; it guards a turn a person reopens (NOTES.md, redundant guards).
BeginUnknown(r, p) ==
    /\ step.status = "unknown"                     \* unknown: needs a person
    /\ pc' = [pc EXCEPT ![r] = "finished"]         \* unknown: needs a person, effect not run
    /\ decided' = decided
    /\ UNCHANGED <<step, turnStatus>>
    /\ lastTx' = SeenRead("step-read", r, p)

\* started, effective policy never: UPDATE status 'unknown', turn 'needs_attention'
BeginStartedNever(r, p) ==
    /\ step.status = "started"                     \* started + never: the row is started
    /\ MostRestrictive(step.policy, p) = "never"            \* started + never -> unknown
    /\ step' = [step EXCEPT !.status = "unknown", !.policy = "never",
                            !.gen = runGen[r], !.by = RunId(r)]
    /\ turnStatus' = "needs_attention"             \* started + never: turn needs_attention
    /\ pc' = [pc EXCEPT ![r] = "finished"]
    /\ decided' = decided
    /\ lastTx' = SeenRead("step-unknown", r, p)

\* started, effective policy always: UPDATE policy, generation, written_by -> run it again
BeginStartedAlways(r, p) ==
    /\ step.status = "started"                     \* started + always: the row is started
    /\ MostRestrictive(step.policy, p) = "always"           \* started + always -> run again
    /\ step' = [step EXCEPT !.policy = MostRestrictive(step.policy, p),
                            !.gen = runGen[r], !.by = RunId(r)]
    /\ turnStatus' = turnStatus
    /\ pc' = [pc EXCEPT ![r] = "decided"]
    /\ decided' = [decided EXCEPT ![r] = MostRestrictive(step.policy, p)]
    /\ lastTx' = SeenRead("step-rerun", r, p)

\* code: examples/agent_runtime/steps.py:43 begin_step (writes through steps.py:35 _fenced_write)
\* begin_step: fence and replay decision in one BEGIN IMMEDIATE transaction
BeginStep(r) ==
    /\ pc[r] = "holding"                           \* worker: begin_step once it holds a lease
    /\ owner = RunId(r)                            \* begin_step fence: lease_owner = :run
    /\ gen = runGen[r]                             \* begin_step fence: lease_generation = :gen
    /\ live                                        \* begin_step fence: lease_expires_at > now
    /\ \E p \in readable[r] :                      \* worker: the policy it read (read_policy)
          \/ BeginInsert(r, p)
          \/ BeginReplayCompleted(r, p)
          \/ BeginUnknown(r, p)
          \/ BeginStartedNever(r, p)
          \/ BeginStartedAlways(r, p)
    /\ readable' = [readable EXCEPT ![r] = {}]
    /\ began' = [began EXCEPT ![r] = Outcome(lastTx'.kind, step.status)]
    /\ UNCHANGED <<owner, gen, live, ended, policyNow, runGen, effects>>

\* code: examples/agent_runtime/worker.py:91 run_turn calls append_effect
\* The external effect, outside any transaction.  A deposed run still does it.
Effect(r) ==
    /\ pc[r] = "decided"                           \* worker: the effect once begin_step said run
    /\ effects' = Append(effects, [run |-> r, gen |-> runGen[r], policy |-> decided[r],
                                    after |-> began[r]])
    /\ pc' = [pc EXCEPT ![r] = "effected"]
    /\ began' = [began EXCEPT ![r] = "ran"]
    /\ UNCHANGED <<turnStatus, owner, gen, live, ended, step, policyNow,
                   runGen, decided, lastTx, readable>>

\* code: examples/agent_runtime/steps.py:108 complete_step
\* complete_step: the same fence, then
\*   UPDATE agent_execution_steps SET status = 'completed', result, generation, written_by
\*   WHERE turn_id AND step_key AND status = 'started' AND generation = :gen
CompleteStep(r) ==
    /\ pc[r] = "effected"                          \* worker: complete_step once the effect returned
    /\ owner = RunId(r)                            \* complete_step fence: lease_owner = :run
    /\ gen = runGen[r]                             \* complete_step fence: lease_generation = :gen
    /\ live                                        \* complete_step fence: lease_expires_at > now
    /\ step.status = "started"                     \* complete_step: status = 'started'
    /\ step.gen = runGen[r]                        \* complete_step: generation = :gen
    /\ step' = [step EXCEPT !.status = "completed", !.gen = runGen[r], !.by = RunId(r)]
    /\ pc' = [pc EXCEPT ![r] = "finished"]
    /\ lastTx' = Seen("step-complete", r)
    /\ UNCHANGED <<turnStatus, owner, gen, live, ended, policyNow,
                   runGen, decided, effects, began, readable>>

\* code: examples/agent_runtime/lease.py:75 finish_turn (called at worker.py:96)
\* finish_turn: UPDATE agent_turns SET status = 'done' WHERE the fence AND
\*   status = 'open' AND NOT EXISTS (a step row of the turn with status != 'completed')
FinishTurn(r) ==
    /\ pc[r] = "finished"                          \* worker: finish_turn once the steps are done
    /\ owner = RunId(r)                            \* finish_turn fence: lease_owner = :run
    /\ gen = runGen[r]                             \* finish_turn fence: lease_generation = :gen
    /\ live                                        \* finish_turn fence: lease_expires_at > now
    /\ turnStatus = "open"                         \* finish_turn: status = 'open'
    /\ step.status \in {"none", "completed"}       \* finish_turn: NOT EXISTS a step with status != 'completed'
    /\ turnStatus' = "done"
    /\ lastTx' = Seen("finish", r)
    /\ UNCHANGED <<owner, gen, live, ended, step, policyNow,
                   pc, runGen, decided, effects, began, readable>>

(***************************************************************************)
(* The environment                                                          *)
(***************************************************************************)

\* A run stops at any point: SIGKILL, or a cooperative stop after a failed
\* renew or fenced write (the failed transaction changes nothing).  Its local
\* state is lost; its lease stays until Expire.
Crash(r) ==
    /\ pc[r] # "idle"
    /\ pc' = [pc EXCEPT ![r] = "idle"]
    /\ runGen' = [runGen EXCEPT ![r] = 0]
    /\ decided' = [decided EXCEPT ![r] = "none"]
    /\ began' = [began EXCEPT ![r] = "none"]
    /\ readable' = [readable EXCEPT ![r] = {}]
    /\ UNCHANGED <<turnStatus, owner, gen, live, ended, step, policyNow,
                   effects, lastTx>>

\* A deploy flips the tool's replay policy (only when AllowFlip).  A process
\* holding a lease may read either policy now: its read (just before
\* begin_step) may come before or after the flip.
Flip ==
    /\ AllowFlip
    /\ policyNow' = IF policyNow = "never" THEN "always" ELSE "never"
    /\ readable' = [q \in Runs |-> IF pc[q] = "holding" THEN readable[q] \cup {policyNow'}
                                                       ELSE readable[q]]
    /\ UNCHANGED <<turnStatus, owner, gen, live, ended, step,
                   pc, runGen, decided, effects, lastTx, began>>

Next ==
    \/ \E r \in Runs :
          \/ Claim(r)
          \/ Renew(r)
          \/ Release(r)
          \/ BeginStep(r)
          \/ Effect(r)
          \/ CompleteStep(r)
          \/ FinishTurn(r)
          \/ Crash(r)
    \/ Expire
    \/ Flip

Spec == Init /\ [][Next]_vars

(***************************************************************************)
(* Properties                                                               *)
(***************************************************************************)

PcValues == {"idle", "holding", "decided", "effected", "finished"}

TypeOK ==
    /\ turnStatus \in {"open", "needs_attention", "done"}
    /\ owner \in Runs \cup {None}
    /\ gen \in 0..MaxGen
    /\ live \in BOOLEAN
    /\ ended \subseteq 0..MaxGen
    /\ step.status \in {"none", "started", "completed", "unknown"}
    /\ policyNow \in Policy
    /\ pc \in [Runs -> PcValues]
    /\ runGen \in [Runs -> 0..MaxGen]
    /\ decided \in [Runs -> Policy \cup {"none"}]
    /\ \A i \in 1..Len(effects) : effects[i].policy \in Policy
    /\ began \in [Runs -> {"none", "run", "replay", "no-run", "ran"}]
    /\ readable \in [Runs -> SUBSET Policy]

\* The holder of the current generation, as the transaction saw it: its run
\* id is the owner and the generation is the one it claimed.
WasHolder(tx) == tx.owner = tx.id /\ tx.leaseGen = tx.runGen

\* The effects of the step done by generation g.
EffectsOf(g) == {i \in 1..Len(effects) : effects[i].gen = g}

\* P8: an effect decided under never is the only effect of its step, across
\* every run and generation (deposed and crashed runs included, policy flips
\* included: the policy is the one that decided that effect).
P8 ==
    \A i \in 1..Len(effects) :
        effects[i].policy = "never" => Len(effects) = 1

\* P1: only the owner of the current live generation commits writes to the
\* step row.  Judged on the writer: the process that wrote holds the current
\* generation (its run id is lease_owner and its own generation, the one it
\* claimed, is lease_generation), which no audit of the database can see;
\* and on the written row, as the step_write_audit trigger judges it: the
\* row's written_by is lease_owner, its generation is lease_generation, and
\* the lease is live, at the write.  (A write that leaves the row as it was
\* wrote another step's row: a spec that extends this one may model those.)
P1 ==
    lastTx.kind \in StepWrites /\ step # lastTx.stepBefore =>
        /\ WasHolder(lastTx)
        /\ step.by = lastTx.owner
        /\ step.gen = lastTx.leaseGen
        /\ lastTx.wasLive

\* A row that begin_step (re)starts names its runner and its generation,
\* and records the policy that decided: the one read for a new row;
\* for a re-run the effective one, which can only be always.
StartedRowNamesHolder ==
    lastTx.kind \in {"step-insert", "step-rerun"} =>
        /\ step.status = "started"
        /\ step.by = lastTx.id
        /\ step.gen = lastTx.runGen
        /\ step.policy = IF lastTx.kind = "step-insert" THEN lastTx.policyNow
                                                        ELSE "always"

\* A flip to never is honoured: a begin_step that finds its step started
\* with never recorded or read (lastTx.policyNow: the policy its worker
\* read) runs nothing again; the row turns
\* unknown and the turn needs a person.  (Written without MostRestrictive,
\* so that an edit of that operator is judged, not copied.)
NeverIsHonoured ==
    /\ lastTx.kind \in BeginKinds
    /\ lastTx.stepBefore.status = "started"
    /\ "never" \in {lastTx.stepBefore.policy, lastTx.policyNow}
    => /\ lastTx.kind = "step-unknown"
       /\ step.status = "unknown"
       /\ turnStatus = "needs_attention"

\* And always means at least once: a begin_step that finds its step started
\* with always recorded and read decides to run it again (no person is
\* asked); that the worker then runs it is RunDecisionRuns.
AlwaysIsRerun ==
    /\ lastTx.kind \in BeginKinds
    /\ lastTx.stepBefore.status = "started"
    /\ lastTx.stepBefore.policy = "always"
    /\ lastTx.policyNow = "always"
    => lastTx.kind = "step-rerun"

\* What the worker does after each decision, judged on the history began
\* (the transaction its begin_step committed), not on the worker's pc alone.
\*
\* A begin_step that decided to run the effect (a new row, a re-run) is
\* followed by that process's effect, or by its crash (which ends its
\* history): until the effect ran, the process is where the worker runs it,
\* never at finish_turn or at a release.
RunDecisionRuns ==
    \A r \in Runs : began[r] = "run" => pc[r] = "decided"

\* A completed step is not run again, whatever the policy: no effect follows
\* a begin_step that found its step completed.  (The promise is about
\* decisions: a process that decided to run before the completion and was
\* deposed since may still run its effect after it, F2 and F7.)
CompletedIsNotRunAgain ==
    \A i \in 1..Len(effects) : effects[i].after # "replay"

\* An effect runs only right after its process's begin_step decided to run
\* it: never after a decision not to run (a row marked unknown, a replay),
\* nor in a lease whose begin_step did not commit (LeaseLost).
EffectOnlyAfterRunDecision ==
    \A i \in 1..Len(effects) : effects[i].after = "run"

\* Whatever a begin_step decided, a row that is not started is left as it
\* is: a completed row is replayed, an unknown row waits for a person.
SettledRowKept ==
    lastTx.kind \in BeginKinds /\ lastTx.stepBefore.status \in {"completed", "unknown"}
        => lastTx.kind = "step-read" /\ step = lastTx.stepBefore

\* A completed step's effect ran, in the generation that completed it.
CompletedMeansEffect ==
    step.status = "completed" =>
        \E i \in EffectsOf(step.gen) : RunId(effects[i].run) = step.by

\* A step is unknown exactly when the turn needs a person.
UnknownNeedsAttention ==
    (step.status = "unknown") = (turnStatus = "needs_attention")

\* P6: no resurrection: a generation that has ended is never live again.
P6 == live => gen \notin ended

\* A claim never succeeds while a run (another one, or the same one) holds a
\* live lease.
ClaimRespectsLiveOwner ==
    lastTx.kind = "claim" => ~(lastTx.owner \in Runs /\ lastTx.wasLive)

\* A closed turn (done, needs_attention) is never leased again: workers
\* leave it to a person.
ClosedTurnNotClaimed ==
    lastTx.kind = "claim" => lastTx.turnBefore = "open"

\* While a run holds the current generation, its run id is the owner: the
\* claim sets both in one statement, only the holder releases, and a run
\* forgets its lease when it releases.  (Why the fences' owner conjuncts
\* decide nothing the generation conjuncts do not: NOTES.md.)
GenerationNamesOwner ==
    \A r \in Runs : runGen[r] # 0 /\ runGen[r] = gen => owner = RunId(r)

\* A renew succeeds only for the holder of the current generation: the
\* worker keeps going on a successful renew.
RenewConfirmsHolder ==
    lastTx.kind = "renew" => WasHolder(lastTx)

\* The turn's status is closed (needs_attention, done) only by the owner of
\* the current live generation.
TurnClosedOnlyByLiveHolder ==
    lastTx.kind \in {"step-unknown", "finish"} => (WasHolder(lastTx) /\ lastTx.wasLive)

\* A turn is done only once its step is completed.
DoneMeansCompleted == turnStatus = "done" => step.status = "completed"

\* A release ends only the releasing run's own generation.
ReleaseOnlyByHolder ==
    lastTx.kind = "release" => WasHolder(lastTx)

(***************************************************************************)
(* Properties the design does NOT promise (known findings, findings/*.cfg)  *)
(***************************************************************************)

\* F2: the effect happens at most once (not promised under "always").
EffectAtMostOnce == Len(effects) <= 1

\* F7: the outside world sees the effects in generation order (a deposed
\* run's effect never lands after its successor's).  Not promised: the
\* effect carries no fencing token the outside world could check.
EffectsInGenerationOrder ==
    \A i, j \in 1..Len(effects) : i < j => effects[i].gen <= effects[j].gen

\* F3: a step is "unknown" only if its effect ran or a run that decided to
\* run it may still do so.
UnknownOnlyIfEffectMayHaveRun ==
    step.status = "unknown" =>
        \/ Len(effects) > 0
        \/ \E r \in Runs : pc[r] = "decided"

=============================================================================
