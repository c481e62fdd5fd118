// A warm JVM for TLC jobs (execlease_hook/tlc/spare.py): started before its first job, it runs
// jobs one at a time, each in a class loader of its own over tla2tools.jar, so TLC's static state
// (TLCGlobals, the UniqueString table, ToolIO, ...) is new for every job while the JVM, the JDK's
// classes and the JIT's work on them stay warm. Compiled at first use with the JDK's javac into
// execlease's cache; never committed compiled.
//
// argv: the class path of every job (tla2tools.jar, then any library jars, joined by the path
// separator), the folder to warm up in (a trivial TLC run there before the first job), and the
// number of jobs after which this JVM ends.
// stdin, one job: its folder, its java.io.tmpdir, then TLC's arguments, one per line, ended by an
// empty line. stdout is the control channel only: "exit N" when the job has ended with TLC's exit
// code N, "exit N retire" when this JVM then ends (see below), "ready" once warm. The job's
// System.out and System.err go to FOLDER/tlc.out, its System.in is empty.
//
// The job runs what tlc2.TLC.main runs, in the same order, with its exit code computed as main
// computes it; System.exit is never intercepted: if TLC calls it, this JVM ends with TLC's code,
// which is then that job's exit code, as in a JVM of its own. After each job, what the job left in
// the JVM's global registries is removed (its MBeans, its exported RMI objects: TLC's fingerprint
// set is a UnicastRemoteObject) and what cannot be removed ends the JVM after the job ("retire"):
// a thread of the job still alive, a throwable TLC did not catch, a registry that cannot be read,
// its last job (argv) done, or a heap more than half full.
import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.rmi.Remote;
import java.rmi.server.UnicastRemoteObject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;

public final class ExecleaseTlcSpare {
    static final int NO_JOB = 3;        // stdin closed before a whole job arrived: execlease went away
    static final String WARMUP = "---- MODULE ExecleaseWarmup ----\nEXTENDS Naturals\nVARIABLE x\n"
        + "Init == x = 0\nNext == x' = (x + 1) % 3\nInv == x < 3\n====\n";

    static final PrintStream CONTROL = new PrintStream(new FileOutputStream(java.io.FileDescriptor.out), true);
    // Why this JVM retires, for a person reading jvm.log (the JVM's own stderr).
    static final PrintStream LOG = new PrintStream(new FileOutputStream(java.io.FileDescriptor.err), true);
    static volatile PrintStream current;  // the running job's output, flushed if TLC ends the JVM

    public static void main(String[] argv) throws Exception {
        String[] entries = argv[0].split(java.io.File.pathSeparator);
        URL[] jar = new URL[entries.length];
        for (int i = 0; i < entries.length; i++) {
            jar[i] = Paths.get(entries[i]).toUri().toURL();
        }
        int maxJobs = argv.length > 2 ? Integer.parseInt(argv[2]) : 1;
        PrintStream idle = new PrintStream(OutputStream.nullOutputStream());
        System.setOut(idle);
        System.setErr(idle);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            PrintStream out = current;
            if (out != null) {
                out.flush();
            }
        }));
        startJdkThreads();
        if (argv.length > 1) {
            warmUp(jar, Paths.get(argv[1]));
        }
        CONTROL.println("ready");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (int done = 1; ; done++) {
            List<String> job = new ArrayList<>();
            String line;
            while ((line = in.readLine()) != null && !line.isEmpty()) {
                job.add(line);
            }
            if (line == null || job.size() < 2) {
                System.exit(NO_JOB);
            }
            Path folder = Paths.get(job.get(0));
            Result r = runJob(jar, folder.resolve("tlc.out"), job.get(1), job.subList(2, job.size()).toArray(new String[0]));
            System.setOut(idle);
            System.setErr(idle);
            boolean retire = r.retire || done >= maxJobs || heapHalfFull();
            if (retire && !r.retire) {
                LOG.println("retire: " + (done >= maxJobs ? done + " jobs done" : "the heap is more than half full"));
            }
            CONTROL.println("exit " + r.exit + (retire ? " retire" : ""));
            if (retire) {
                System.exit(0);
            }
        }
    }

    static final class Result {
        int exit = 1;
        boolean retire;
    }

    /** The JDK's own threads a TLC run starts on first use (RMI's, for the fingerprint set's
     * export), started now with this loader as their context, so that no job's loader is. */
    static void startJdkThreads() {
        try {
            Remote probe = new Remote() { };
            UnicastRemoteObject.exportObject(probe, 0);
            UnicastRemoteObject.unexportObject(probe, true);
        } catch (Exception e) {
            // no RMI here: a job that needs it fails as it would in a JVM of its own
        }
        ManagementFactory.getPlatformMBeanServer();
    }

    static void warmUp(URL[] jar, Path folder) {
        try {
            Files.createDirectories(folder.resolve("meta"));
            Files.createDirectories(folder.resolve("javatmp"));
            Files.write(folder.resolve("ExecleaseWarmup.tla"), WARMUP.getBytes(StandardCharsets.UTF_8));
            Files.write(folder.resolve("ExecleaseWarmup.cfg"), "INIT Init\nNEXT Next\nINVARIANT Inv\n".getBytes(StandardCharsets.UTF_8));
            runJob(jar, folder.resolve("tlc.out"), folder.resolve("javatmp").toString(), new String[] {
                "-tool", "-workers", "1", "-metadir", folder.resolve("meta").toString(),
                "-config", "ExecleaseWarmup.cfg", folder.resolve("ExecleaseWarmup.tla").toString()});
        } catch (Exception e) {
            // only the head start is lost
        }
    }

    static Result runJob(URL[] jar, Path output, String tmpdir, String[] args) throws Exception {
        Result r = new Result();
        Properties properties = (Properties) System.getProperties().clone();
        Set<Thread> before = new HashSet<>(Thread.getAllStackTraces().keySet());
        InputStream stdin = System.in;
        URLClassLoader loader = new URLClassLoader(jar, ClassLoader.getPlatformClassLoader());
        try (PrintStream out = new PrintStream(new BufferedOutputStream(new FileOutputStream(output.toFile())), true)) {
            current = out;
            System.setOut(out);
            System.setErr(out);
            System.setIn(new ByteArrayInputStream(new byte[0]));
            System.setProperty("java.io.tmpdir", tmpdir);
            Thread main = new Thread(() -> {
                try {
                    r.exit = tlcMain(loader, args);
                } catch (Throwable e) {
                    // What the JVM does with a throwable that leaves main: print it, exit 1.
                    Throwable cause = e instanceof InvocationTargetException ? e.getCause() : e;
                    out.print("Exception in thread \"main\" ");
                    cause.printStackTrace(out);
                    r.exit = 1;
                    r.retire = true;
                    LOG.println("retire: the job ended with " + cause);
                }
            }, "main");
            main.setContextClassLoader(loader);
            main.start();
            main.join();
            out.flush();
        } finally {
            current = null;
            System.setIn(stdin);
            System.setProperties(properties);
            r.retire |= !cleanUp(loader, before);
            loader.close();
        }
        return r;
    }

    /** tlc2.TLC.main's steps, in its order, returning the code main passes to System.exit. */
    static int tlcMain(ClassLoader loader, String[] args) throws Exception {
        Class<?> tlcClass = Class.forName("tlc2.TLC", true, loader);
        Object tlc = tlcClass.getConstructor().newInstance();
        if (!(boolean) tlcClass.getMethod("handleParameters", String[].class).invoke(tlc, (Object) args)) {
            return 1;
        }
        Method checkEnvironment = tlcClass.getDeclaredMethod("checkEnvironment");
        checkEnvironment.setAccessible(true);
        if (!(boolean) checkEnvironment.invoke(tlc)) {
            return 1;
        }
        Class<?> mailClass = Class.forName("util.MailSender", true, loader);
        Object mail = mailClass.getConstructor().newInstance();
        Class<?> resolverType = Class.forName("util.FilenameToStream", true, loader);
        Method setResolver = tlcClass.getMethod("setResolver", resolverType);
        Field inJar = tlcClass.getDeclaredField("MODEL_PART_OF_JAR");
        inJar.setAccessible(true);
        if ((boolean) inJar.get(null)) {
            setResolver.invoke(tlc, Class.forName("model.InJarFilenameToStream", true, loader)
                .getConstructor(String.class).newInstance("/model/"));
        } else {
            String mainFile = (String) tlcClass.getMethod("getMainFile").invoke(tlc);
            String dir = (String) Class.forName("util.FileUtil", true, loader)
                .getMethod("parseDirname", String.class).invoke(null, mainFile);
            Class<?> simple = Class.forName("util.SimpleFilenameToStream", true, loader);
            setResolver.invoke(tlc, dir.isEmpty() ? simple.getConstructor().newInstance()
                : simple.getConstructor(String.class).newInstance(dir));
        }
        mailClass.getMethod("setModelName", String.class).invoke(mail, tlcClass.getMethod("getModelName").invoke(tlc));
        mailClass.getMethod("setSpecName", String.class).invoke(mail, tlcClass.getMethod("getSpecName").invoke(tlc));
        int code = (int) tlcClass.getMethod("process").invoke(tlc);
        if (!(boolean) mailClass.getMethod("send", List.class).invoke(mail, tlcClass.getMethod("getModuleFiles").invoke(tlc))) {
            return 1;
        }
        return (int) Class.forName("tlc2.output.EC$ExitStatus", true, loader)
            .getMethod("errorConstantToExitStatus", int.class).invoke(null, code);
    }

    /** Removes what the job's loader left in the JVM's registries; false: something is left that
     * cannot be removed, so this JVM must not run another job. */
    static boolean cleanUp(ClassLoader loader, Set<Thread> before) {
        boolean clean = true;
        try {
            MBeanServer beans = ManagementFactory.getPlatformMBeanServer();
            for (ObjectName name : beans.queryNames(null, null)) {
                if (beans.getClassLoaderFor(name) == loader) {
                    beans.unregisterMBean(name);
                }
            }
        } catch (Exception e) {
            LOG.println("retire: the MBeans cannot be read: " + e);
            clean = false;
        }
        try {
            Class<?> table = Class.forName("sun.rmi.transport.ObjectTable");
            Field field = table.getDeclaredField("objTable");
            field.setAccessible(true);
            Map<?, ?> targets = (Map<?, ?>) field.get(null);
            List<Remote> exported = new ArrayList<>();
            synchronized (targets) {
                for (Object target : targets.values()) {
                    Method impl = target.getClass().getDeclaredMethod("getImpl");
                    impl.setAccessible(true);
                    Object object = impl.invoke(target);
                    if (object instanceof Remote && object.getClass().getClassLoader() == loader) {
                        exported.add((Remote) object);
                    }
                }
            }
            for (Remote object : exported) {
                UnicastRemoteObject.unexportObject(object, true);
            }
        } catch (Exception e) {
            LOG.println("retire: RMI's table cannot be read: " + e);
            clean = false;  // RMI's table is not where Java 17 keeps it: one job per JVM
        }
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (before.contains(t) || !t.isAlive()) {
                continue;
            }
            if (t.getClass().getClassLoader() == loader || t.getContextClassLoader() == loader) {
                try {
                    t.join(200);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                if (t.isAlive()) {
                    LOG.println("retire: the job's thread " + t.getName() + " is still alive");
                    clean = false;
                }
            }
        }
        return clean;
    }

    static boolean heapHalfFull() {
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        return heap.getMax() > 0 && heap.getUsed() > heap.getMax() / 2;
    }
}
